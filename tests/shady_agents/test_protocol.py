"""Shady Agents over signed records: every table size audits, cheaters are named, nothing leaks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spycraft.cli.main import main
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import BadOpening, OutOfTurn, RecordError, RuleViolation, SealError
from spycraft.crypto.group import Scalar
from spycraft.crypto.seal import unseal
from spycraft.engines.agent import Agent
from spycraft.engines.audit import audit_transcript
from spycraft.engines.game import Build
from spycraft.engines.seat import table_key_secret
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents.components import BULLET, CORRUPT, LAW_ABIDING, MEDKIT
from spycraft.engines.shady_agents.protocol import SIDES, State, tool_binding
from spycraft.engines.shady_agents.seat import ShadyAgentsSeat
from spycraft.engines.table import FRAUD, Turn
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


def test_only_the_receiver_can_open_a_tool_and_it_reads_the_kind_the_reveal_opens() -> None:
    game = play(6, 2)
    end: State = game.states[-1].game
    masters = [s.context.master for s in game.local.seats]
    for i, gift in enumerate(end.game.gifts):
        slot = sum(1 for g in end.game.gifts[:i] if g.seq == gift.seq)
        for seat in range(6):
            binding = tool_binding(end.table, gift.seq, gift.giver, seat, slot)
            if seat == gift.receiver:
                opened = unseal(end.seals[i], table_key_secret(masters[seat]), binding)
                assert opened == end.gift_kinds[i]
            else:
                with pytest.raises(SealError):
                    unseal(end.seals[i], table_key_secret(masters[seat]), binding)


def _secrets_of(game: Played, seat: int) -> list[bytes]:
    """Every secret value ``seat`` keeps until the final reveal."""
    final_body = next(
        r.record.body for r in game.records if r.record.kind == "reveal" and r.record.seat == seat
    )
    found = [final_body["secret"]]
    found += [opening[1] for opening in final_body["openings"]]  # seal nonces
    found += [opening[2] for opening in final_body["openings"]]  # ephemeral secrets
    if final_body["discard"] is not None:
        found.append(final_body["discard"][1])
    return found


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


class RoundTwoCheat(ShadyAgentsSeat):
    """Builds its round-2 record with its own ``build_round_two`` (the moves table holds the
    honest seat's builder)."""

    def build(self, state: State, turn: Turn, agent: Agent) -> tuple[str, Any]:
        if turn.kinds != ("round_two",):
            return super().build(state, turn, agent)
        seq = self.next_seq(state)
        kind = "round_two"
        b = Build(turn, agent, seq, self.context_of(state, seq, kind), self.entropy(kind, seq))
        return kind, self.build_round_two(state, b)


class GivesTheUsedKind(RoundTwoCheat):
    """In round 2 gives again the kind it already gave or discarded in round 1."""

    def build_round_two(self, state: State, b: Build) -> dict[str, Any]:
        me = self.knowledge(state)
        if len(me.holding) != 1:
            return super().build_round_two(state, b)
        spent = BULLET if me.holding[0] == MEDKIT else MEDKIT
        receiver = next(s for s in range(state.n) if s != self.seat)
        self.context.memo[f"used/{b.seq}"] = spent
        sealed, _ = self._seal(state, b.seq, receiver, 0, spent, b.entropy)
        return {"gifts": [[receiver, sealed.encode()]]}


class TwoBullets(RoundTwoCheat):
    """The first player with both tools gives two Bullets in round 2."""

    def build_round_two(self, state: State, b: Build) -> dict[str, Any]:
        if len(self.knowledge(state).holding) != 2:
            return super().build_round_two(state, b)
        others = [s for s in range(state.n) if s != self.seat][:2]
        self.context.memo[f"used/{b.seq}"] = BULLET + BULLET
        gifts = [
            [r, self._seal(state, b.seq, r, slot, BULLET, b.entropy)[0].encode()]
            for slot, r in enumerate(others)
        ]
        return {"gifts": gifts}


def _round_two_seq(game: Played, seat: int) -> int:
    return next(
        r.seq for r in game.records if r.record.kind == "round_two" and r.record.seat == seat
    )


def test_a_tool_given_again_after_it_was_spent_is_fraud_at_that_gift() -> None:
    cheater = (play(5, 3).states[-1].game.game.first + 1) % 5  # holds one tool in round 2
    game = play(5, 3, cheaters={cheater: GivesTheUsedKind})
    end: State = game.states[-1].game
    (violation,) = end.violations
    error = violation.error()
    assert isinstance(error, RuleViolation)
    assert (error.seat, error.seq) == (cheater, _round_two_seq(game, cheater))
    assert "no longer held" in error.what
    result = game.states[-1].result
    assert result is not None and result.reason == FRAUD and result.forfeits == (cheater,)
    assert result.winner == (SIDES[1] if end.roles[cheater] == LAW_ABIDING else SIDES[0])


def test_a_second_bullet_from_the_first_player_is_fraud_at_its_round_two_gift() -> None:
    for seed in range(1, 40):
        honest = play(4, seed).states[-1].game.game
        first = honest.first
        if any(a.caller == first for a in honest.interrogations):  # it keeps both tools
            break
    else:
        pytest.fail("no game where the first player interrogates")
    game = play(4, seed, cheaters={first: TwoBullets})
    end: State = game.states[-1].game
    (violation,) = end.violations
    assert (violation.seat, violation.seq) == (first, _round_two_seq(game, first))
    assert "Bullet it no longer held" in violation.what


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


def test_a_discard_opened_as_the_other_kind_is_rejected_naming_seat_and_seq() -> None:
    game = play(6, 3)  # seeded: two discards
    discarder = game.states[-1].game.game.discards[0].seat
    position, body = _reveal(game, discarder)
    kind, nonce = body["discard"]
    body["discard"] = [BULLET if kind == MEDKIT else MEDKIT, nonce]
    error = _apply_forged(game, position, discarder, body)
    assert isinstance(error, BadOpening)
    assert (error.seat, error.seq) == (discarder, game.records[position].seq)


def test_a_forged_seal_opening_is_rejected_naming_seat_and_seq() -> None:
    game = play(6, 2)
    giver = game.states[-1].game.game.gifts[0].giver
    position, body = _reveal(game, giver)
    value, nonce, secret = body["openings"][0]
    body["openings"] = [[BULLET if value == MEDKIT else MEDKIT, nonce, secret],
                        *body["openings"][1:]]
    error = _apply_forged(game, position, giver, body)
    assert isinstance(error, BadOpening)
    assert (error.seat, error.seq) == (giver, game.records[position].seq)


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
