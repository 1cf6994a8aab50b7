"""Shady Agents over signed records: every table size audits, cheaters are named, nothing leaks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spycraft.cli.main import main
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import BadOpening, OutOfTurn, RecordError, RuleViolation
from spycraft.crypto.group import Scalar
from spycraft.engines.audit import audit_transcript
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents.components import CORRUPT, LAW_ABIDING
from spycraft.engines.shady_agents.rules import SIDES, State
from spycraft.engines.shady_agents.seat import ShadyAgentsSeat
from spycraft.engines.table import FRAUD
from tests.shady_agents.helpers import Played, play


@pytest.mark.parametrize("players", range(4, 11))
def test_selfplay_and_audit_pass_for_every_table_size(
    players: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "g.cbor"
    assert main(["selfplay", "shady-agents", "--players", str(players), "--seed", str(players),
                 "--out", str(out)]) == 0
    assert main(["audit", str(out)]) == 0
    text = capsys.readouterr().out
    assert "VALID" in text and "result: " in text


# --- the hidden elements: who can read what ---------------------------------------------------


def _secrets_of(game: Played, seat: int) -> list[bytes]:
    """Every secret value ``seat`` keeps until the final reveal."""
    final_body = next(
        r.record.body for r in game.records if r.record.kind == "reveal" and r.record.seat == seat
    )
    return [final_body["secret"]]  # the key share opens every role card, tool and discard


@pytest.mark.parametrize("players, seed", [(4, 1), (7, 3), (10, 4)])
def test_no_role_or_tool_kind_leaks_before_the_final_reveal(players: int, seed: int) -> None:
    game = play(players, seed)
    first_reveal = game.positions("reveal")[0]
    for seat in range(players):
        secrets = _secrets_of(game, seat)
        for signed in game.records[:first_reveal]:
            assert not any(s in signed.raw for s in secrets), (seat, signed.seq)
    # the public state carries no kind until the reveal opens them
    for state in game.states[: first_reveal + 1]:
        assert state.game.gift_kinds == () and state.game.discard_kinds == ()
        assert state.game.roles == ()


def test_a_seat_knows_its_team_and_the_kinds_it_gave_received_and_discarded() -> None:
    game = play(8, 5)
    end: State = game.states[-1].game
    for seat in game.local.seats:
        me = seat.game.view(end).knowledge
        assert me.team == end.roles[seat.index]
        for seq, giver, kind in me.received:
            i = next(i for i, g in enumerate(end.game.gifts) if g.seq == seq and g.giver == giver
                     and g.receiver == seat.index)
            assert kind == end.gift_kinds[i]
        assert me.holding == ()


# --- cheaters ---------------------------------------------------------------------------------


def liars(team: str) -> type[ShadyAgentsSeat]:
    class Liar(ShadyAgentsSeat):
        """Answers what its team may not: Law-abiding lies, Corrupt tells the truth."""

        def answer_options(self, state: State) -> tuple[Any, ...]:
            allowed = super().answer_options(state)
            if self.knowledge(state).team != team:
                return allowed
            asking = state.game.asking
            assert asking is not None and asking.snapshot is not None
            every = cards.options(asking.drawn, asking.snapshot, self.seat)
            return tuple(a for a in every if a not in allowed)

    return Liar


@pytest.mark.parametrize("team", [LAW_ABIDING, CORRUPT])
def test_a_false_answer_by_either_team_is_fraud_named_with_seat_and_seq(team: str) -> None:
    for seed in range(1, 40):
        game = play(6, seed, cheaters={s: liars(team) for s in range(6)})
        end: State = game.states[-1].game
        lies = [
            (seat, seq)
            for asking in end.game.interrogations
            for seat, _, seq in asking.answers
            if end.roles[seat] == team
        ]
        if lies:
            break
    else:
        pytest.fail("no game with an answer by that team")
    errors = [v.error() for v in end.violations]
    assert all(isinstance(e, RuleViolation) for e in errors)
    assert sorted((e.seat, e.seq) for e in errors) == sorted(lies)
    result = game.states[-1].result
    assert result is not None and result.reason == FRAUD
    winner = SIDES[0] if team == CORRUPT else SIDES[1]
    assert result.winner == winner
    assert {s for s, _ in lies} <= set(result.forfeits)
    assert {q for _, q in lies} <= set(result.evidence)
    assert not audit_transcript(game.local.transcript).valid


def _reveal(game: Played, seat: int) -> tuple[int, Any]:
    position = next(
        i for i, r in enumerate(game.records) if r.record.kind == "reveal" and r.record.seat == seat
    )
    return position, dict(game.records[position].record.body)


def _apply_forged(game: Played, position: int, seat: int, body: Any) -> RecordError:
    state = game.states[position]
    forged = game.local.seats[seat].sign(state, game.records[position].record.kind, body)
    with pytest.raises(RecordError) as caught:
        game.local.table.apply(state, forged)
    return caught.value


def test_a_role_card_opened_falsely_is_rejected_and_its_seat_forfeits() -> None:
    game = play(5, 4)
    position, body = _reveal(game, 1)
    body["secret"] = Scalar.random(SeededEntropy(99)).encode()
    error = _apply_forged(game, position, 1, body)
    assert isinstance(error, BadOpening)
    assert (error.seat, error.seq) == (1, game.records[position].seq)
    # the fraud interrupt: another seat proves it, seat 1 forfeits, its team loses
    local = game.local
    local.records = list(game.records[:position])
    local.state = game.states[position]
    forged = local.seats[1].sign(local.state, "reveal", body)
    fraud = local.seats[2].sign(local.state, "fraud", {"evidence": [forged.raw]})
    local.state = local.table.apply(local.state, fraud)
    local.records.append(fraud)
    final = local.run(game.agents)
    assert final.result is not None and final.result.reason == FRAUD
    assert final.result.forfeits == (1,) and fraud.seq in final.result.evidence
    team = final.game.roles[1]
    assert final.result.winner == (SIDES[1] if team == LAW_ABIDING else SIDES[0])
    assert audit_transcript(local.transcript).describe().startswith("FRAUD ")


def test_an_interrogation_out_of_turn_is_rejected() -> None:
    game = play(6, 2)
    position = game.positions("round_one")[1]
    writer = game.records[position].record.seat
    intruder = (writer + 2) % 6
    error = _apply_forged(game, position, intruder, {"give": None, "discard": bytes(32)})
    assert isinstance(error, OutOfTurn)
    assert (error.seat, error.seq) == (intruder, game.records[position].seq)


def test_the_first_player_cannot_discard_on_the_wire() -> None:
    game = play(6, 2)
    position = game.positions("round_one")[0]
    first = game.records[position].record.seat
    error = _apply_forged(game, position, first, {"give": None, "discard": bytes(32)})
    assert error.seat == first and "always free" in error.what
