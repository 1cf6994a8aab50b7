"""SpyNet's sealed tokens: proven when sealed, so a bad one is the sender's fraud at that record.

A seat that already knows a card and must show it to one more seat seals its reveal token to
that seat's deck key share (``crypto.seal.SealedShare``): the draft hand passed on, a pile card
another seat looked at before, a card passed to a teammate. Every engine checks the seal's proof
when the record arrives. Each attack below is a record a real seat signs with a body its honest
seat would not write; each is refused at that record naming the sender, and once another seat
turns it into a fraud record the sender forfeits and the receiver is never blamed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from spycraft.cli.main import main
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import InvalidProof, MalformedRecord, RecordError
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.records import SignedRecord
from spycraft.crypto.seal import SealedShare
from spycraft.engines.audit import audit_transcript
from spycraft.engines.game import proof_context
from spycraft.engines.local import LocalTable
from spycraft.engines.protocols.deck_ops import SEAL, duty
from spycraft.engines.spynet.rules import GAME as NAME
from spycraft.engines.spynet.rules import State, side_name
from spycraft.engines.spynet.scoring import teams
from spycraft.engines.table import FRAUD, TableState, Turn
from tests.spynet.test_spynet_game import new_table, play_until

# what asked for the reveal: the draft hand passed on, a pile shown to its recruit, a pass
MOMENTS = {"draft": ("draft_pick", 3, 1), "pile": ("pile", 3, 2), "pass": ("pass_card", 4, 3)}


def sealing_after(local: LocalTable, asker: str) -> Callable[[TableState[State], Turn], bool]:
    """The next record owes a sealed token, in a reveal asked for by a record of ``asker``."""
    def found(state: TableState[State], turn: Turn) -> bool:
        ops = state.game.ops
        reveal = ops.pending
        if turn.kinds != ("deck_tokens",) or reveal is None or reveal.to is None:
            return False
        if not any(duty(ops, turn.seat, c, reveal.to) == SEAL for c in reveal.cards):
            return False
        asked = local.records[state.game.asked_by[1] - 1]
        assert asked.seq == state.game.asked_by[1]
        return asked.record.kind == asker

    return found


def at_a_seal(moment: str) -> tuple[LocalTable, list[Any], Turn, dict[str, Any]]:
    """A table where the next record owes a sealed token after ``moment``, and the honest
    body of that record."""
    asker, players, seed = MOMENTS[moment]
    local, agents = new_table(players, seed)
    turn = play_until(local, agents, sealing_after(local, asker))
    honest = local.seats[turn.seat].build(local.state, agents[turn.seat]).record.body
    return local, agents, turn, dict(honest)


def sealed_index(local: LocalTable, turn: Turn) -> tuple[int, int, int]:
    """(index in the body, card, receiver) of the first sealed token the record owes."""
    ops = local.state.game.ops
    reveal = ops.pending
    assert reveal is not None and reveal.to is not None
    i = next(i for i, c in enumerate(reveal.cards) if duty(ops, turn.seat, c, reveal.to) == SEAL)
    return i, reveal.cards[i], reveal.to


def forged(local: LocalTable, turn: Turn, body: dict[str, Any], i: int, sealed: Any
           ) -> SignedRecord:
    entries = list(body["sealed"])
    entries[i] = sealed
    return local.seats[turn.seat].sign(local.state, "deck_tokens", {**body, "sealed": entries})


def refused(local: LocalTable, signed: SignedRecord, error: type[RecordError]) -> RecordError:
    with pytest.raises(RecordError) as caught:
        local.table.apply(local.state, signed)
    assert type(caught.value) is error, caught.value
    assert (caught.value.seat, caught.value.seq) == (signed.record.seat, signed.record.seq)
    return caught.value


def lies(local: LocalTable, turn: Turn, card: int, receiver: int) -> dict[str, Any]:
    """Every false seal the sender could write for ``card`` to ``receiver``."""
    ops = local.state.game.ops
    seq = local.state.seq + 1
    context = proof_context(NAME, local.genesis.genesis.table, seq, turn.seat, "deck_tokens")
    key = local.seats[turn.seat].game.key
    entropy = SeededEntropy(b"a cheater's seal")
    wrong_seat = next(s for s in range(ops.seats) if s not in (turn.seat, receiver))
    other_card = next(c for c in range(len(ops.deck)) if c != card)
    def seal(card: int, to: int, ctx: bytes, secret: Scalar = key) -> Any:
        return ops.deck.seal_token(card, secret, ops.key_shares[to], ctx, entropy).encode()
    later = proof_context(NAME, local.genesis.genesis.table, seq + 1, turn.seat, "deck_tokens")
    honest = SealedShare.decode(seal(card, receiver, context))
    return {
        "garbage points": [Point.hash_to("g", 1).encode(), Point.hash_to("g", 2).encode(),
                           [Scalar.from_int(7).encode()] * 3],
        "the token of another card": seal(other_card, receiver, context),
        "a token of another key": seal(card, receiver, context, Scalar.from_int(5)),
        "sealed to another seat": seal(card, wrong_seat, context),
        "with another record's proof": seal(card, receiver, later),
        "the token moved off its proof": [honest.e1.encode(),
                                          (honest.e2 + Point.hash_to("g", 3)).encode(),
                                          honest.proof.encode()],
    }


@pytest.mark.parametrize("moment", sorted(MOMENTS))
def test_every_false_seal_is_refused_at_its_record_naming_the_sender(moment: str) -> None:
    local, _, turn, body = at_a_seal(moment)
    i, card, receiver = sealed_index(local, turn)
    for what, sealed in lies(local, turn, card, receiver).items():
        error = refused(local, forged(local, turn, body, i, sealed), InvalidProof)
        assert error.seat == turn.seat and error.seat != receiver, what
    for garbage in (b"garbage", [b"x" * 32, b"y" * 32, [b"z" * 32] * 3], None):
        if garbage is None:  # a sealed token left out where one is owed
            refused(local, forged(local, turn, body, i, None), MalformedRecord)
        else:
            refused(local, forged(local, turn, body, i, garbage), MalformedRecord)


def test_a_seal_replayed_from_an_earlier_record_is_refused() -> None:
    local, _, turn, body = at_a_seal("pass")
    i, _, _ = sealed_index(local, turn)
    earlier = [
        s for r in local.records if r.record.kind == "deck_tokens"
        for s in r.record.body["sealed"] if s is not None
    ]
    assert earlier, "no seal before the pass"
    for old in earlier[-3:]:
        refused(local, forged(local, turn, body, i, old), InvalidProof)


@pytest.mark.parametrize("moment", ["draft", "pass"])
def test_a_garbage_seal_is_the_senders_fraud_and_never_the_receivers_loss(
        moment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The receiver proves the bad seal at once with a fraud record: the sender forfeits at
    that record, the audit (in process and ``spycraft audit``) names it, the receiver's side
    is not the loser."""
    local, agents, turn, body = at_a_seal(moment)
    i, card, receiver = sealed_index(local, turn)
    bad = forged(local, turn, body, i, lies(local, turn, card, receiver)["garbage points"])
    refused(local, bad, InvalidProof)
    fraud = local.seats[receiver].sign(local.state, "fraud", {"evidence": [bad.raw]})
    local.state = local.table.apply(local.state, fraud)
    local.records.append(fraud)
    final = local.run(agents)
    result = final.result
    assert result is not None and result.reason == FRAUD
    assert result.forfeits == (turn.seat,) and result.evidence == (bad.seq,)
    sides = {seat: side_name(next(t for t in teams(final.game.n) if seat in t))
             for seat in (turn.seat, receiver)}
    assert result.winner != sides[turn.seat]
    report = audit_transcript(local.transcript)
    assert report.describe().startswith("FRAUD ")
    named = f"invalid proof by seat {turn.seat}, record {bad.seq}"
    assert any(named in f for f in report.frauds), report.frauds
    assert not any(f"by seat {receiver}," in f for f in report.frauds)
    path = tmp_path / "game.cbor"
    path.write_bytes(local.transcript.to_bytes())
    assert main(["audit", str(path)]) == 1
    printed = capsys.readouterr().out
    assert printed.startswith("FRAUD ") and named in printed


def test_every_seal_of_an_honest_game_opens_for_its_receiver_only() -> None:
    """Nothing is left for the final reveal: each seal opens, with the receiver's key share, to
    the sender's true token; with any other seat's key it opens to something else."""
    local, agents = new_table(4, 3)
    final = local.run(agents)
    ops = final.game.ops
    assert ops.seals, "a 4-player game passes cards"
    keys = [s.game.key for s in local.seats]
    for seal in ops.seals:
        true = ops.deck.cards[seal.card].c1 * keys[seal.sender]
        for seat in range(4):
            opened = ops.deck.unseal_token(seal.sealed, keys[seat])
            assert (opened == true) == (seat == seal.receiver)
    assert all(set(r.record.body) == {"secret"} for r in local.records
               if r.record.kind == "reveal")
