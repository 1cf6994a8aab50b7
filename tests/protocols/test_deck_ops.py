"""Deck operations on their own: a private reveal reaches its receiver only, a public one all."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spycraft.crypto.deck import Faces
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import Unattributed
from spycraft.crypto.group import Scalar
from spycraft.engines.game import Played, proof_context
from spycraft.engines.protocols import deck_ops
from spycraft.engines.protocols.deck_ops import DeckHand, DeckOps
from spycraft.engines.table import frozen

TABLE = b"d" * 16
FACES = Faces.of("test/deck", [f"card{i}" for i in range(6)])


class Table:
    def __init__(self, seats: int) -> None:
        self.ops = deck_ops.new(seats, FACES)
        self.hands = [
            DeckHand(i, Scalar.random(SeededEntropy(bytes([i + 1]) * 32))) for i in range(seats)
        ]
        self.seq = 0

    def record(self, tamper: bool = False) -> Played:
        turn = deck_ops.turn(self.ops)
        assert turn is not None
        self.seq += 1
        kind = turn.kinds[0]
        context = proof_context("test", TABLE, self.seq, turn.seat, kind)
        hand = self.hands[turn.seat]
        if tamper:
            hand = DeckHand(turn.seat, Scalar.random(SeededEntropy(b"x" * 32)))
        entropy = SeededEntropy(bytes([self.seq]) * 32)
        body = frozen(deck_ops.BUILD[kind](hand, self.ops, context, entropy))
        deck_ops.SCHEMAS[kind].check(body, len(self.hands), kind)
        return Played(TABLE, self.seq, b"", turn.seat, kind, body, "test")

    def run(self) -> DeckOps:
        while deck_ops.turn(self.ops) is not None:
            record = self.record()
            self.ops = deck_ops.APPLY[record.kind](self.ops, record, record.body)
        return self.ops


def test_a_private_reveal_reaches_its_receiver_and_a_public_one_everyone() -> None:
    table = Table(3)
    ops = table.run()
    assert ops.idle and len(ops.key_shares) == 3
    table.ops = deck_ops.request(ops, (0, 1), to=1)
    ops = table.run()
    seen = [table.hands[1].peek(ops, c) for c in (0, 1)]
    assert all(face is not None for face in seen) and seen[0] != seen[1]
    assert table.hands[0].peek(ops, 0) is None and table.hands[2].peek(ops, 1) is None
    table.ops = deck_ops.request(ops, (2,), to=None)
    ops = table.run()
    face = ops.face(2)
    assert face is not None and face not in seen
    assert all(hand.peek(ops, 2) == face for hand in table.hands)


def test_a_false_token_is_caught_at_once() -> None:
    table = Table(3)
    table.ops = deck_ops.request(table.run(), (4,), to=0)
    record = table.record(tamper=True)
    with pytest.raises(Unattributed):
        deck_ops.APPLY[record.kind](table.ops, record, record.body)


def test_the_game_cannot_open_two_operations_at_once() -> None:
    table = Table(2)
    ops = deck_ops.request(table.run(), (0,), to=0)
    with pytest.raises(RuntimeError):
        deck_ops.request(ops, (1,), to=1)


def test_a_card_revealed_to_a_second_seat_stays_hidden_from_the_third() -> None:
    table = Table(3)
    table.ops = deck_ops.request(table.run(), (0,), to=0)
    ops = table.run()
    table.ops = deck_ops.request(ops, (0,), to=1)
    turn = deck_ops.turn(table.ops)
    assert turn is not None and turn.seat == 0  # only the first viewer owes: a sealed token
    ops = table.run()
    face = table.hands[0].peek(ops, 0)
    assert face is not None and table.hands[1].peek(ops, 0) == face
    assert table.hands[2].peek(ops, 0) is None
    assert ops.published_by(0) == (1, 2)  # seat 0's token was never published
    (sealed,) = ops.seals
    assert (sealed.card, sealed.sender, sealed.receiver) == (0, 0, 1)
    table.ops = deck_ops.request(ops, (0,), to=None)
    ops = table.run()
    assert ops.face(0) == face


def _pass_to_seat_one() -> tuple[Table, Played]:
    """Card 2 shown to seat 0, then to seat 1: seat 0's record owes its token sealed."""
    table = Table(3)
    table.ops = deck_ops.request(table.run(), (2,), to=0)
    table.ops = deck_ops.request(table.run(), (2,), to=1)
    record = table.record()
    assert record.seat == 0 and record.body["sealed"][0] is not None
    return table, record


def _with_sealed(record: Played, sealed: object) -> Played:
    return replace(record, body=frozen({**record.body, "sealed": [sealed]}))


def test_a_false_sealed_token_is_refused_at_once() -> None:
    """Garbage, the token of another card, a seal to another seat, one copied from another
    record: each is refused when the record arrives, as a false public token is."""
    table, record = _pass_to_seat_one()
    context = record.context
    deck_ops.APPLY["deck_tokens"](table.ops, record, record.body)
    ops, hand = table.ops, table.hands[0]
    receiver, wrong_seat = ops.key_shares[1], ops.key_shares[2]
    entropy = SeededEntropy(b"cheat")
    other_card = ops.deck.seal_token(3, hand.key, receiver, context, entropy)
    to_seat_two = ops.deck.seal_token(2, hand.key, wrong_seat, context, entropy)
    later = proof_context("test", TABLE, record.seq + 1, 0, "deck_tokens")
    from_another_record = ops.deck.seal_token(2, hand.key, receiver, later, entropy)
    garbage = [bytes(range(32)), bytes(32), [bytes(32)] * 3]
    errors = []
    for sealed in (other_card.encode(), to_seat_two.encode(), from_another_record.encode(),
                   garbage):
        with pytest.raises(Unattributed) as caught:
            forged = _with_sealed(record, frozen(sealed))
            deck_ops.APPLY["deck_tokens"](ops, forged, forged.body)
        errors.append(type(caught.value).__name__)
    assert errors == ["ProofError", "ProofError", "ProofError", "MalformedValue"]


def test_a_reveal_to_a_seat_that_knows_the_card_owes_nothing() -> None:
    table = Table(2)
    table.ops = deck_ops.request(table.run(), (3,), to=1)
    ops = table.run()
    again = deck_ops.request(ops, (3,), to=1)
    assert again.pending is None and deck_ops.turn(again) is None
