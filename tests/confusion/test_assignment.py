"""Confusion's assignment is proven at once: each ``assign`` record proves that its 13
commitments are the 13 types (a proof of a shuffle of the public types), so every cheat on the
commitments is refused at the record that makes it, naming its seat and seq. Behind the proofs,
the engine refuses any record whose public facts no assignment could explain (a second Double
Agent, a type shown twice, answers no single type gives), shown here with the assignment proof
switched off, as a broken proof would leave it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import InvalidProof, MalformedRecord, RecordError, RuleViolation
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.membership import Commitment, commit, prove_member, prove_permutation
from spycraft.engines.agent import Decision
from spycraft.engines.audit import audit_transcript
from spycraft.engines.confusion import GAME, model, notebook
from spycraft.engines.confusion.board import RED, WHITE, Line, line, square
from spycraft.engines.confusion.movement import TYPE_IDS, Announcement, answer_sets
from spycraft.engines.confusion.rules import TYPE_DOMAIN
from spycraft.engines.confusion.seat import ConfusionSeat
from spycraft.engines.errors import Violation
from spycraft.engines.game import proof_context
from spycraft.engines.local import LocalTable, new_local_table

protocol = sys.modules["spycraft.engines.confusion.rules"]
DAS = ("DA",) * 13


def table(seed: int = 3, tokens: bool = False) -> LocalTable:
    e = SeededEntropy(seed)
    return new_local_table(GAME, GAME.genesis_options(2, {"tokens": tokens} if tokens else {}), 2,
                           e)


def game_seat(local: LocalTable, seat: int) -> ConfusionSeat:
    s = local.seats[seat].game
    assert isinstance(s, ConfusionSeat)
    return s


def blindings(seat: ConfusionSeat) -> list[Scalar]:
    return [seat.blinding(i) for i in range(13)]


def assign_body(local: LocalTable, seat: int, types: tuple[str, ...],
                proved: tuple[str, ...] | None = None, seq: int | None = None,
                table_id: bytes | None = None) -> dict[str, Any]:
    """Commitments to ``types`` with the seat's blindings, and a permutation proof that is
    honest for the commitments to ``proved`` (default: the seat's own order) at ``seq`` of
    ``table_id`` (default: this record)."""
    s = game_seat(local, seat)
    rs = blindings(s)
    order = proved or s.order()
    honest = [commit(TYPE_DOMAIN, t, r) for t, r in zip(order, rs)]
    where = proof_context("confusion", table_id or local.state.genesis.table,
                          seq if seq is not None else local.state.seq + 1, seat, "assign")
    proof = prove_permutation(honest, TYPE_DOMAIN, TYPE_IDS, order, rs, where,
                              SeededEntropy(b"cheat"))
    committed = [commit(TYPE_DOMAIN, t, r).encode() for t, r in zip(types, rs)]
    return {"commitments": committed, "proof": proof.encode()}


def refused(local: LocalTable, seat: int, body: dict[str, Any]) -> RecordError:
    signed = local.seats[seat].sign(local.state, "assign", body)
    with pytest.raises(RecordError) as error:
        local.table.apply(local.state, signed)
    assert (error.value.seat, error.value.seq) == (seat, local.state.seq + 1)
    return error.value


def to_red(local: LocalTable) -> LocalTable:
    """White's honest assign record applied: Red writes next."""
    agents = [GAME.bots["random"](SeededEntropy(b"a"), i) for i in range(2)]
    local.step(agents)
    turn = local.table.expect(local.state)
    assert turn is not None and (turn.seat, turn.kinds) == (1, ("assign",))
    return local


def test_thirteen_double_agents_are_refused_at_the_assign_record() -> None:
    # The attack: every White spy a Double Agent, so every answer is free.
    local = to_red(table())
    assert isinstance(refused(local, 1, assign_body(local, 1, DAS)), InvalidProof)


def test_the_audit_agrees_the_thirteen_double_agents_are_reds_fraud_at_its_record() -> None:
    local = to_red(table())
    lie = local.seats[1].sign(local.state, "assign", assign_body(local, 1, DAS))
    fraud = local.seats[0].sign(local.state, "fraud", {"evidence": [lie.raw]})
    local.state = local.table.apply(local.state, fraud)
    local.records.append(fraud)
    agents = [GAME.bots["random"](SeededEntropy(b"a"), i) for i in range(2)]
    state = local.run(agents)  # White opens its commitments, then the result
    assert state.result is not None
    assert (state.result.winner, state.result.reason, state.result.forfeits) == (
        "White", "fraud", (1,))
    report = audit_transcript(local.transcript)
    assert report.result == state.result
    assert any("invalid proof by seat 1, record 2" in f
               and "not proven to hold each value once" in f for f in report.frauds), report.frauds


@pytest.mark.parametrize("types", [
    ("T02",) + TYPE_IDS[1:],  # 12 types and a duplicate (T02 twice, no T01)
    TYPE_IDS[:-1] + ("T01",),  # no Double Agent at all
    TYPE_IDS[:-1] + ("PR",),  # a type outside the 13: the promoted side
    TYPE_IDS[:-1] + ("T13",),  # a type nobody has
], ids=["duplicate", "no-double-agent", "promoted-side", "unknown-type"])
def test_commitments_that_are_not_the_13_types_are_refused(types: tuple[str, ...]) -> None:
    local = to_red(table())
    assert isinstance(refused(local, 1, assign_body(local, 1, types)), InvalidProof)


def test_reordered_commitments_with_the_proof_for_the_old_order_are_refused() -> None:
    local = to_red(table())
    order = game_seat(local, 1).order()
    swapped = (order[1], order[0]) + order[2:]
    assert isinstance(refused(local, 1, assign_body(local, 1, swapped, proved=order)),
                      InvalidProof)


def test_a_proof_made_for_another_record_or_table_is_refused() -> None:
    local = to_red(table())
    seq = local.state.seq + 1
    for body in (assign_body(local, 1, game_seat(local, 1).order(), seq=seq + 1),
                 assign_body(local, 1, game_seat(local, 1).order(), table_id=bytes(16))):
        assert isinstance(refused(local, 1, body), InvalidProof)


def test_the_other_seats_assign_record_copied_is_refused() -> None:
    # Red repeats White's commitments and proof word for word: the proof is bound to White's
    # record (seat 0, seq 1), so it does not verify in Red's.
    local = table()
    agents = [GAME.bots["random"](SeededEntropy(b"a"), i) for i in range(2)]
    white = local.step(agents)
    assert white is not None
    assert isinstance(refused(local, 1, dict(white.record.body)), InvalidProof)


def test_a_commitment_with_an_identity_tag_or_a_mangled_proof_is_malformed() -> None:
    local = to_red(table())
    honest = assign_body(local, 1, game_seat(local, 1).order())
    shown = list(honest["commitments"])
    shown[0] = [shown[0][0], bytes(32)]  # r = 0: the commitment would show its type
    assert isinstance(refused(local, 1, {**honest, "commitments": shown}), MalformedRecord)
    assert isinstance(refused(local, 1, {**honest, "proof": honest["proof"][:4]}),
                      MalformedRecord)


def test_an_honest_assignment_verifies_and_the_audit_agrees() -> None:
    local = table(seed=8)
    agents = [GAME.bots["random"](SeededEntropy(b"a"), i) for i in range(2)]
    state = local.run(agents)
    assert state.result is not None and not state.result.forfeits
    assert audit_transcript(local.transcript).result == state.result


# --- defence in depth: the assignment proof switched off ----------------------------------------


class Scripted:
    """White rotates its announcements over its spies, each time the move the fewest types
    refuse, and never takes a free action; Red (the cheater) answers "no" to everything it may,
    and takes option 0 otherwise."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.turn = 0

    def decide(self, decision: Decision) -> int:
        if decision.kind == "answer":
            return decision.options.index(False) if False in decision.options else 0
        if decision.kind == "announce" and self.seat == 0:
            spies = sorted({a.spy for a in decision.options})
            spy = spies[self.turn % len(spies)]
            self.turn += 1
            board = decision.view.game.board

            def refusing(i: int) -> int:
                a = decision.options[i]
                return len(answer_sets(line(WHITE, board.position(a.spy), a.to)).no)

            mine = [i for i, a in enumerate(decision.options) if a.spy == spy]
            return min(mine, key=refusing)
        return 0


@pytest.fixture
def unproven(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., LocalTable]]:
    """A table where Red committed 13 Double Agents and the engine did not check the proof."""

    def make(tokens: bool = False) -> LocalTable:
        local = to_red(table(seed=4, tokens=tokens))
        monkeypatch.setattr(protocol, "verify_permutation", lambda *args: None)
        cheat = game_seat(local, 1)
        body = assign_body(local, 1, DAS)
        signed = local.seats[1].sign(local.state, "assign", body)
        local.state = local.table.apply(local.state, signed)
        local.records.append(signed)
        monkeypatch.undo()
        monkeypatch.setattr(cheat, "order", lambda: DAS)
        return local

    yield make


def test_answers_no_single_assignment_explains_are_refused_at_the_answer(
        unproven: Callable[..., LocalTable]) -> None:
    # Every "no" is a true membership proof for a Double Agent, so each passes its proof; the
    # record after which no way of giving White's spies the 13 types fits the answers is refused.
    local = unproven()
    agents = [Scripted(0), Scripted(1)]
    with pytest.raises(RuleViolation) as error:
        local.run(agents, max_records=400)
    turn = local.table.expect(local.state)
    assert turn is not None and turn.kinds == ("answer",)
    assert (error.value.seat, error.value.seq) == (1, local.state.seq + 1)
    log = local.state.game.game.log
    nos = [o for o in log if o.kind == "no"]
    assert len(nos) >= 5 and notebook.page(log, 0).consistent()


def test_a_second_double_agent_elimination_is_refused(
        unproven: Callable[..., LocalTable]) -> None:
    local = unproven()
    agents = [Scripted(0), Scripted(1)]
    while not (local.state.game.game.phase == "play" and local.state.game.game.turn == 1
               and local.state.game.game.step == "free"):
        local.step(agents)
    cheat = game_seat(local, 1)
    first = eliminate(local, cheat, "W-A")
    local.state = local.table.apply(local.state, first)
    while not (local.state.game.game.turn == 1 and local.state.game.game.step == "free"):
        local.step(agents)
    second = eliminate(local, cheat, "W-B")
    with pytest.raises(RuleViolation) as error:
        local.table.apply(local.state, second)
    assert (error.value.seat, error.value.seq) == (1, second.record.seq)
    assert "W-B" in error.value.what


def eliminate(local: LocalTable, cheat: ConfusionSeat, spy: str) -> Any:
    g = local.state.game.game
    index = g.assigned[0][ord(spy[2]) - ord("A")]
    where = proof_context("confusion", local.state.genesis.table, local.state.seq + 1, 1, "free")
    proof = prove_member(commitment(g, spy), TYPE_DOMAIN, "DA", cheat.blinding(index), ("DA",),
                         where, SeededEntropy(b"da"))
    body = {"action": "eliminate_opp_da", "spy": spy, "proof": proof.encode()}
    return local.seats[1].sign(local.state, "free", body)


def commitment(g: model.Game, spy: str) -> Commitment:
    return Commitment.decode(g.commitment_of(spy))


# --- the same checks on the model: facts the public record already contradicts ----------------


def playing() -> model.Game:
    """Both sides committed (the model never reads the points) and White to move."""
    g = model.start(bytes(32), True, "white")
    pair = (Point.base_mul(Scalar.from_int(1)).encode(),) * 2
    g = model.commit_assignment(g, 0, (pair,) * 13)
    g = model.commit_assignment(g, 1, (pair,) * 13)
    return model.apply_draw(g, [0] * 24)


def answered_no(g: model.Game, spy: str, to: str, seq: int) -> model.Game:
    """White announces ``spy`` to ``to`` and Red answers "no"."""
    g = replace(g, turn=WHITE, step="announce", moved=(), moves_left=1)
    g = model.announce(g, Announcement(spy, "move", square(to)))
    return model.answer(g, False, None, seq)


def test_a_type_shown_twice_is_refused() -> None:
    g = model.show(replace(playing(), step="show", reveal="W-A"), "T10", 5)
    with pytest.raises(Violation, match="contradicts the record"):
        model.show(replace(g, step="show", reveal="W-B"), "T10", 11)


def test_a_show_contradicting_a_proven_answer_is_refused() -> None:
    g = answered_no(playing(), "W-C", "f5", 4)  # "no" to N4: not the Sprinter
    with pytest.raises(Violation, match="no type of W-C"):
        model.show(replace(g, step="show", reveal="W-C"), "T10", 6)


def test_a_fifth_no_to_n1_leaves_no_assignment() -> None:
    # Four of the 13 types have no N line (T03, T08, T11 and the DA): after four White spies
    # answered "no" to N1, a fifth "no" leaves no way of giving White's spies the 13 types.
    no_north = answer_sets(Line("N", 1)).no
    assert no_north == ("T03", "T08", "T11", "DA")
    g = playing()
    for n, (spy, to) in enumerate((("W-F", "a3"), ("W-G", "c3"), ("W-H", "d3"), ("W-I", "e3"))):
        g = answered_no(g, spy, to, 10 + n)
    assert model.perfect_matching(g.candidates[WHITE])
    with pytest.raises(Violation, match="no way to give White's 13 spies"):
        answered_no(g, "W-J", "g3", 20)


def test_the_honest_facts_of_a_whole_game_always_fit_an_assignment() -> None:
    local = table(seed=5, tokens=True)
    agents = [GAME.bots["heuristic"](SeededEntropy(b"h").child(str(i)), i) for i in range(2)]
    state = local.run(agents)
    g = state.game.game
    for side in (WHITE, RED):
        assert model.perfect_matching(g.candidates[side])
        page = notebook.page(g.log, side)
        masks = [sum(1 << TYPE_IDS.index(t) for t in types) for _, types in page.local]
        assert tuple(masks) == g.candidates[side]
