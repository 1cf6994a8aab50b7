"""The Resistance's plot looks: the face token sealed to the viewer, proven at its record.

A plot card that shows one seat's role to another (Overheard Conversation, Open Up, Establish
Confidence) has the seat looked at seal its token of its card's face column to the viewer's
key share (``crypto.seal.SealedShare``), with a proof every engine checks on arrival. So the
viewer always reads the true role, never the key column (which would hand a spy's key to the
viewer), and a false look is refused at once, naming the seat that sealed it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spycraft.cli.main import main
from spycraft.crypto import recognition
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import InvalidProof, MalformedRecord, RecordError
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.seal import seal_share
from spycraft.engines.audit import audit_transcript
from spycraft.engines.game import proof_context
from spycraft.engines.local import LocalTable
from spycraft.engines.resistance.rules import State
from spycraft.engines.table import FRAUD, Turn
from tests.resistance.helpers import run_until, seat_of, table

SEED = (5, 7)  # a 5-seat plot game with two looks


def at_a_look(which: int = 0) -> tuple[LocalTable, list[Any], Turn]:
    """The table just before its look number ``which`` (0: the first) is written."""
    local, agents = table(*SEED, plot=True)
    turn = run_until(local, agents, lambda s, t: t.kinds == ("look",))
    for _ in range(which):
        local.step(agents)
        turn = run_until(local, agents, lambda s, t: t.kinds == ("look",))
    return local, agents, turn


def lies(local: LocalTable, turn: Turn) -> dict[str, Any]:
    state: State = local.state.game
    look = state.pending_look()
    assert look is not None
    subject, viewer = look.subject, look.viewer
    keys = state.key_shares
    other = next(s for s in range(state.n) if s not in (subject, viewer))
    key = seat_of(local, subject).key
    face, key_column = state.deck[subject]
    seq = local.state.seq + 1
    context = proof_context("resistance", state.table, seq, subject, "look")
    entropy = SeededEntropy(b"a false look")

    def sealed(base: Point, to: int, ctx: bytes = context, secret: Scalar = key) -> Any:
        return seal_share(secret, base, keys[to], ctx, entropy).encode()

    return {
        "the key column, which would show a spy's key": sealed(key_column.c1, viewer),
        "another seat's role": sealed(state.deck[other][0].c1, viewer),
        "a token of another key": sealed(face.c1, viewer, secret=Scalar.from_int(3)),
        "sealed to another seat": sealed(face.c1, other),
        "with another record's proof": sealed(
            face.c1, viewer, proof_context("resistance", state.table, seq + 1, subject, "look")),
        "garbage points": [Point.hash_to("g", 1).encode(), Point.hash_to("g", 2).encode(),
                           [Scalar.from_int(4).encode()] * 3],
    }


def refused(local: LocalTable, turn: Turn, sealed: Any, error: type[RecordError]) -> RecordError:
    signed = local.seats[turn.seat].sign(local.state, "look", {"sealed": sealed})
    with pytest.raises(RecordError) as caught:
        local.table.apply(local.state, signed)
    assert type(caught.value) is error, caught.value
    assert (caught.value.seat, caught.value.seq) == (turn.seat, signed.record.seq)
    return caught.value


def test_every_false_look_is_refused_at_its_record_naming_the_seat_looked_at() -> None:
    local, _, turn = at_a_look()
    for what, sealed in lies(local, turn).items():
        assert refused(local, turn, sealed, InvalidProof).seat == turn.seat, what
    for garbage in (b"garbage", [b"x" * 32, b"y" * 32, [b"z" * 32] * 3], []):
        refused(local, turn, garbage, MalformedRecord)


def test_a_look_replayed_from_an_earlier_record_is_refused() -> None:
    local, _, turn = at_a_look(1)
    (earlier,) = [r.record.body["sealed"] for r in local.records if r.record.kind == "look"]
    refused(local, turn, earlier, InvalidProof)


def test_the_viewer_reads_the_true_role_of_every_look() -> None:
    local, agents = table(*SEED, plot=True)
    final = local.run(agents)
    looks = final.game.role_looks
    assert len(looks) == 2
    for look in looks:
        seen = dict(seat_of(local, look.viewer).knowledge(final.game).seen_roles)
        assert seen[look.subject] == (final.game.roles[look.subject] == recognition.SPY)
    assert all(set(r.record.body) == {"secret"} for r in local.records
               if r.record.kind == "reveal")


def test_a_false_look_is_the_subjects_fraud_and_never_the_viewers_loss(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    local, agents, turn = at_a_look()
    state: State = local.state.game
    look = state.pending_look()
    assert look is not None
    bad = local.seats[turn.seat].sign(
        local.state, "look", {"sealed": lies(local, turn)["garbage points"]})
    fraud = local.seats[look.viewer].sign(local.state, "fraud", {"evidence": [bad.raw]})
    local.state = local.table.apply(local.state, fraud)
    local.records.append(fraud)
    final = local.run(agents)
    result = final.result
    assert result is not None and result.reason == FRAUD
    assert result.forfeits == (turn.seat,) and result.evidence == (bad.seq,)
    side = "spies" if final.game.roles[turn.seat] == recognition.SPY else "resistance"
    assert result.winner not in (side, None)
    named = f"invalid proof by seat {turn.seat}, record {bad.seq}"
    report = audit_transcript(local.transcript)
    assert report.describe().startswith("FRAUD ") and any(named in f for f in report.frauds)
    path = tmp_path / "game.cbor"
    path.write_bytes(local.transcript.to_bytes())
    assert main(["audit", str(path)]) == 1
    assert named in capsys.readouterr().out
