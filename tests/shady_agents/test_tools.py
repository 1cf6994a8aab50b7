"""Shady Agents' tools: every face-down tool and discard is proven when it is made.

A Move seals its tool to the receiver's role-deal key share and keeps it under the giver's own
(``crypto.seal.SealedChoice``: one of Bullet or Medkit, the same for both), a discard encrypts
its tool under the discarder's key, and each round-2 record proves that the seat's tools, given
and discarded, add up to one Bullet and one Medkit. So every lie about a tool is refused at the
record that made it, naming the giver, and the receiver always reads what it got: it can never
answer an interrogation blind or be blamed for a tool it could not open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spycraft.cli.main import main
from spycraft.crypto import elgamal
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import (
    IllegalAction,
    InvalidProof,
    MalformedRecord,
    MalformedValue,
    RecordError,
)
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.records import SignedRecord
from spycraft.crypto.seal import open_sealed_choice, seal_choice
from spycraft.engines.audit import audit_transcript
from spycraft.engines.game import proof_context
from spycraft.engines.shady_agents.components import BULLET, LAW_ABIDING, MEDKIT, TOOLS
from spycraft.engines.shady_agents.rules import (
    BOTH_TOOLS,
    SIDES,
    TOOL_POINTS,
    State,
    spent,
)
from spycraft.engines.table import FRAUD
from tests.shady_agents.helpers import Played, play

THIRD = Point.hash_to("shady-agents/tool", "X")  # neither a Bullet nor a Medkit


def _moment(game: Played, kind: str, which: Any) -> tuple[int, int]:
    """(position, writer) of the first record of ``kind`` whose body ``which`` accepts."""
    for i, signed in enumerate(game.records):
        if signed.record.kind == kind and which(signed.record.body):
            return i, signed.record.seat
    pytest.fail(f"no {kind} record of that shape")


def _sign(game: Played, position: int, body: Any) -> SignedRecord:
    signed = game.records[position]
    seat = game.local.seats[signed.record.seat]
    return seat.sign(game.states[position], signed.record.kind, body)


def _refused(game: Played, position: int, body: Any, error: type[RecordError]) -> RecordError:
    forged = _sign(game, position, body)
    with pytest.raises(RecordError) as caught:
        game.local.table.apply(game.states[position], forged)
    assert type(caught.value) is error, caught.value
    assert (caught.value.seat, caught.value.seq) == (forged.record.seat, forged.record.seq)
    return caught.value


def _state(game: Played, position: int) -> State:
    state: State = game.states[position].game
    return state


def _seal(game: Played, position: int, giver: int, receiver: int, index: int = 0, *,
          candidates: tuple[Point, ...] = TOOL_POINTS, to: int | None = None,
          seq: int | None = None) -> Any:
    """A tool sealed by ``giver``, proven for the record at ``position`` (or at ``seq``), to
    ``to``'s key (default: the receiver named)."""
    state = _state(game, position)
    keys = state.deal.key_shares
    seq = game.records[position].seq if seq is None else seq
    kind = game.records[position].record.kind
    context = proof_context("shady-agents", state.table, seq, giver, kind)
    return seal_choice(candidates, index, keys[giver], keys[receiver if to is None else to],
                       context, SeededEntropy(b"cheater")).encode()


def test_every_false_move_is_refused_at_its_record_naming_the_giver() -> None:
    game = play(6, 2)
    position, giver = _moment(game, "round_one", lambda b: b["give"] is not None)
    receiver = game.records[position].record.body["give"][0]
    other = next(s for s in range(6) if s not in (giver, receiver))
    seq = game.records[position].seq
    lies = {
        "a tool of a third kind": _seal(game, position, giver, receiver, 1,
                                        candidates=(TOOL_POINTS[0], THIRD)),
        "sealed to another seat": _seal(game, position, giver, receiver, to=other),
        "with another record's proof": _seal(game, position, giver, receiver, seq=seq + 1),
        "garbage points": [Point.hash_to("g", i).encode() for i in range(3)]
        + [[[Scalar.from_int(1).encode()] * 2] * 2, [Scalar.from_int(2).encode()] * 2],
    }
    for what, sealed in lies.items():
        error = _refused(game, position, {"give": [receiver, sealed], "discard": None},
                         InvalidProof)
        assert error.seat == giver != receiver, what
    _refused(game, position, {"give": [receiver, [b"x" * 32] * 5], "discard": None},
             MalformedRecord)
    _refused(game, position, {"give": [receiver, b"garbage"], "discard": None}, MalformedRecord)


def test_a_move_replayed_from_another_record_is_refused() -> None:
    game = play(6, 2)
    moves = [i for i, r in enumerate(game.records)
             if r.record.kind == "round_one" and r.record.body["give"] is not None]
    first, later = moves[0], moves[1]
    copied = game.records[first].record.body["give"]
    for receiver in range(6):  # the copy, to its own receiver or any other
        if receiver != game.records[later].record.seat:
            _refused(game, later, {"give": [receiver, copied[1]], "discard": None},
                     InvalidProof)


def test_a_discard_of_a_third_kind_or_garbage_is_refused_at_its_record() -> None:
    game = play(6, 3)  # seeded: two discards
    position, seat = _moment(game, "round_one", lambda b: b["discard"] is not None)
    state = _state(game, position)
    seq = game.records[position].seq
    context = proof_context("shady-agents", state.table, seq, seat, "round_one")
    third = elgamal.encrypt_one_of(state.deal.key_shares[seat], (TOOL_POINTS[0], THIRD), 1,
                                   context, SeededEntropy(b"x"))
    _refused(game, position, {"give": None, "discard": third.encode()}, InvalidProof)
    other = next(s for s in range(6) if s != seat)  # the discard under another seat's key
    theirs = elgamal.encrypt_one_of(state.deal.key_shares[other], TOOL_POINTS, 0, context,
                                    SeededEntropy(b"y"))
    _refused(game, position, {"give": None, "discard": theirs.encode()}, InvalidProof)
    _refused(game, position, {"give": None, "discard": bytes(32)}, MalformedRecord)


def _round_two(game: Played, position: int, gifts: list[tuple[int, int]]) -> dict[str, Any]:
    """A round-2 body of the writer at ``position`` giving ``gifts`` ((receiver, tool index)),
    with the writer's own proof that its tools add up to B + M (false when they do not)."""
    signed = game.records[position]
    seat = signed.record.seat
    state = _state(game, position)
    key = game.local.seats[seat].game.key
    keys = state.deal.key_shares
    context = proof_context("shady-agents", state.table, signed.seq, seat, "round_two")
    entropy = SeededEntropy(b"round two")
    sealed = [seal_choice(TOOL_POINTS, i, keys[seat], keys[r], context, entropy)
              for r, i in gifts]
    tools = elgamal.ciphertext_sum(spent(state, seat) + [c.own for c in sealed])
    both = elgamal.prove_plaintext(tools, key, BOTH_TOOLS, context, entropy)
    return {"gifts": [[r, c.encode()] for (r, _), c in zip(gifts, sealed)], "both": both.encode()}


def _spent_kind(game: Played, seat: int, position: int) -> int:
    """The index of the tool ``seat`` used in round 1 (what it knows before ``position``)."""
    known = game.local.seats[seat].game.knowledge(_state(game, position))
    kind = known.given[0][2] if known.given else known.discarded
    assert kind is not None
    return TOOLS.index(kind)


def test_a_tool_given_again_after_it_was_spent_is_refused_at_its_round_two_record() -> None:
    game = play(5, 3)
    position, seat = _moment(game, "round_two", lambda b: len(b["gifts"]) == 1)
    receiver = game.records[position].record.body["gifts"][0][0]
    honest = _round_two(game, position, [(receiver, 1 - _spent_kind(game, seat, position))])
    game.local.table.apply(game.states[position], _sign(game, position, honest))  # accepted
    again = _round_two(game, position, [(receiver, _spent_kind(game, seat, position))])
    _refused(game, position, again, InvalidProof)


def _first_player_keeping_both() -> Played:
    for seed in range(1, 40):
        game = play(4, seed)
        if any(len(r.record.body["gifts"]) == 2 for r in game.records
               if r.record.kind == "round_two"):
            return game
    pytest.fail("no game where the first player interrogates")


def test_two_bullets_at_once_are_refused_and_so_is_a_pair_that_tells_its_order() -> None:
    game = _first_player_keeping_both()
    position, _ = _moment(game, "round_two", lambda b: len(b["gifts"]) == 2)
    a, b = sorted(r for r, _ in game.records[position].record.body["gifts"])
    _refused(game, position, _round_two(game, position, [(a, 0), (b, 0)]), InvalidProof)
    _refused(game, position, _round_two(game, position, [(a, 1), (b, 1)]), InvalidProof)
    game.local.table.apply(game.states[position],
                           _sign(game, position, _round_two(game, position, [(a, 1), (b, 0)])))
    unsorted = _round_two(game, position, [(b, 0), (a, 1)])  # Bullet first, as the old format
    error = _refused(game, position, unsorted, IllegalAction)
    assert "by receiver seat" in error.what


def test_a_round_two_proof_taken_from_another_record_is_refused() -> None:
    game = play(6, 2)
    rounds = [i for i, r in enumerate(game.records) if r.record.kind == "round_two"]
    body = dict(game.records[rounds[1]].record.body)
    body["both"] = game.records[rounds[0]].record.body["both"]
    _refused(game, rounds[1], body, InvalidProof)


def test_the_receiver_reads_every_tool_and_the_final_reveal_opens_it_from_both_keys() -> None:
    game = play(6, 2)
    end: State = game.states[-1].game
    keys = [s.game.key for s in game.local.seats]
    for i, gift in enumerate(end.game.gifts):
        sealed = end.seals[i]
        kind = TOOLS[open_sealed_choice(sealed, keys[gift.receiver], TOOL_POINTS)]
        assert kind == end.gift_kinds[i]
        assert TOOLS[open_sealed_choice(sealed, keys[gift.giver], TOOL_POINTS, as_sender=True)] \
            == kind
        for seat in set(range(6)) - {gift.receiver}:
            with pytest.raises(MalformedValue):
                open_sealed_choice(sealed, keys[seat], TOOL_POINTS)
    assert all(set(r.record.body) == {"secret"} for r in game.records
               if r.record.kind == "reveal")
    assert {BULLET, MEDKIT} == set(end.gift_kinds) | set(end.discard_kinds)


def test_a_garbage_tool_is_the_givers_fraud_and_never_the_receivers_loss(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = play(6, 2)
    position, giver = _moment(game, "round_one", lambda b: b["give"] is not None)
    receiver = game.records[position].record.body["give"][0]
    third = _seal(game, position, giver, receiver, 1, candidates=(TOOL_POINTS[0], THIRD))
    bad = _sign(game, position, {"give": [receiver, third], "discard": None})
    local = game.local
    local.records = list(game.records[:position])
    local.state = game.states[position]
    fraud = local.seats[receiver].sign(local.state, "fraud", {"evidence": [bad.raw]})
    local.state = local.table.apply(local.state, fraud)
    local.records.append(fraud)
    final = local.run(game.agents)
    result = final.result
    assert result is not None and result.reason == FRAUD
    assert result.forfeits == (giver,) and result.evidence == (bad.seq,)
    team = final.game.roles[giver]
    assert result.winner == (SIDES[1] if team == LAW_ABIDING else SIDES[0])
    named = f"invalid proof by seat {giver}, record {bad.seq}"
    report = audit_transcript(local.transcript)
    assert report.describe().startswith("FRAUD ") and any(named in f for f in report.frauds)
    assert not any(f"by seat {receiver}," in f for f in report.frauds)
    path = tmp_path / "game.cbor"
    path.write_bytes(local.transcript.to_bytes())
    assert main(["audit", str(path)]) == 1
    assert named in capsys.readouterr().out
