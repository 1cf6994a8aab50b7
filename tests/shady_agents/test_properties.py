"""Property tests: whole random games of Shady Agents on the engine's model, 4..10 players.

Each example plays one legal game (random roles, first player, turns, cards and answers as the
rules force) through ``model`` (the functions the protocol applies) and checks the invariants:
each seat holds, gives and discards consistently; an honest game passes ``judge``; the score adds
up as §7 says; every game ends after round 2; the same choices give the same game. A few whole
games over signed records check seeded determinism.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.engines.shady_agents import cards, scoring
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import (
    BULLET,
    LAW_ABIDING,
    MEDKIT,
    TOOLS,
    Tool,
    round_one_order,
    round_two_order,
)
from tests.shady_agents.helpers import play
from tests.shady_agents.script import Table


def random_game(data: st.DataObject) -> tuple[Table, list[tuple[str, object]]]:
    players = data.draw(st.integers(4, 10), label="players")
    first = data.draw(st.integers(0, players - 1), label="first")
    deck = list(data.draw(st.permutations(scoring.role_deck(players)), label="deck"))
    leftover = deck.pop() if players % 2 else None
    t = Table(players, first, tuple(deck), leftover)
    held: dict[int, list[Tool]] = {s: list(TOOLS) for s in range(players)}
    choices: list[tuple[str, object]] = []
    for seat in round_one_order(players, first):
        others = [s for s in range(players) if s != seat]
        kind = data.draw(st.sampled_from(held[seat]))
        if data.draw(st.booleans()):
            receiver = data.draw(st.sampled_from(others))
            t.move(seat, receiver, kind)
            held[seat].remove(kind)
            choices.append(("move", (seat, receiver, kind)))
            continue
        discard = None if seat == first else kind
        if discard is not None:
            held[seat].remove(discard)
        card = data.draw(st.sampled_from(sorted(t.game.remaining)))
        answerers = t.ask(seat, discard, card)
        choices.append(("ask", (seat, discard, card)))
        for answerer in answerers:
            said = data.draw(st.sampled_from(t.required(answerer)))
            t.answer(answerer, said)
            choices.append(("answer", (answerer, said)))
    assert t.game.phase == M.ROUND2
    for seat in round_two_order(players, first):
        assert t.game.held(seat) == len(held[seat]) >= 1
        others = [s for s in range(players) if s != seat]
        receivers = data.draw(st.permutations(others))[: len(held[seat])]
        gifts = tuple(zip(receivers, sorted(held[seat])))
        t.give(seat, *gifts)
        held[seat] = []
        choices.append(("give", gifts))
    return t, choices


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_random_honest_game_holds_every_invariant(data: st.DataObject) -> None:
    t, _ = random_game(data)
    n = t.players
    game = t.game
    assert game.phase == M.END  # every game ends after round 2
    assert all(game.held(s) == 0 for s in range(n))
    for seat in range(n):
        used = sorted(
            [k for g, k in zip(game.gifts, t.gift_kinds) if g.giver == seat]
            + [k for d, k in zip(game.discards, t.discard_kinds) if d.seat == seat]
        )
        assert used == sorted(TOOLS)
        assert all(g.receiver != seat for g in game.gifts if g.giver == seat)
    assert t.judge() == ()
    assert len(game.gifts) + len(game.discards) == 2 * n
    assert not any(d.seat == game.first for d in game.discards)
    score = t.score()
    received_m = sum(1 for k in t.gift_kinds if k == MEDKIT)
    received_b = sum(1 for k in t.gift_kinds if k == BULLET)
    assert sum(score.values) == received_m - received_b
    bonus = 1 if n % 2 else 0
    assert sum(score.team_scores) == sum(score.values) + bonus
    assert sum(score.medkits) == received_m
    law = score.team_score(LAW_ABIDING) - score.team_score("C")
    if law:
        assert score.winner == (LAW_ABIDING if law > 0 else "C")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_lie_is_always_caught_at_the_answer_that_told_it(data: st.DataObject) -> None:
    t, _ = random_game(data)
    answers = [(s, said, seq) for a in t.game.interrogations for s, said, seq in a.answers]
    if not answers:
        return
    seat, said, seq = data.draw(st.sampled_from(answers))
    asking = next(a for a in t.game.interrogations if (seat, said, seq) in a.answers)
    snapshot = M.full_snapshot(t.game, asking, tuple(t.gift_kinds), tuple(t.discard_kinds))
    other = "C" if t.roles[seat] == LAW_ABIDING else LAW_ABIDING
    swapped = tuple(other if s == seat else r for s, r in enumerate(t.roles))
    assert said not in cards.required_answers(asking.drawn, snapshot, seat, other)
    found, _ = M.judge(t.game, tuple(t.gift_kinds), tuple(t.discard_kinds), swapped)  # type: ignore[arg-type]
    assert (seat, seq) in {(v.seat, v.seq) for v in found}


def closed_with(t: Table, data: st.DataObject) -> tuple[int, Any, Any, Any]:
    """One seat forfeits: its tools and discard stay closed, and its role maybe (``None``)."""
    seat = data.draw(st.integers(0, t.game.n - 1), label="forfeiter")
    gifts = tuple(None if g.giver == seat else k for g, k in zip(t.game.gifts, t.gift_kinds))
    discards = tuple(
        None if d.seat == seat else k for d, k in zip(t.game.discards, t.discard_kinds)
    )
    role_closed = data.draw(st.booleans(), label="role closed")
    roles = tuple(None if s == seat and role_closed else r for s, r in enumerate(t.roles))
    return seat, gifts, discards, roles


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_forfeiters_closed_tools_and_role_never_convict_an_honest_game(
    data: st.DataObject,
) -> None:
    t, _ = random_game(data)
    seat, gifts, discards, roles = closed_with(t, data)
    found, unjudged = M.judge(t.game, gifts, discards, roles)
    assert found == ()
    assert all(f"seat {seat}" in u.needs for u in unjudged)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_lie_beside_a_forfeiter_is_caught_or_said_to_be_unjudged(data: st.DataObject) -> None:
    t, _ = random_game(data)
    answers = [(s, said, seq) for a in t.game.interrogations for s, said, seq in a.answers]
    if not answers:
        return
    liar, _, seq = data.draw(st.sampled_from(answers), label="lie")
    other = "C" if t.roles[liar] == LAW_ABIDING else LAW_ABIDING
    t.roles = tuple(other if s == liar else r for s, r in enumerate(t.roles))  # type: ignore[assignment]
    seat, gifts, discards, roles = closed_with(t, data)
    found, unjudged = M.judge(t.game, gifts, discards, roles)
    convicted = {(v.seat, v.seq) for v in found}
    left_open = {(u.seat, u.seq) for u in unjudged}
    assert (liar, seq) in convicted | left_open
    assert all(f"seat {seat}" in u.needs for u in unjudged)
    assert convicted <= {(s, q) for s, _, q in answers if s == liar}


def test_seeded_selfplay_is_deterministic_and_replays_byte_for_byte() -> None:
    for players, seed in ((4, 21), (9, 22)):
        first, again = play(players, seed), play(players, seed)
        assert first.local.transcript.to_bytes() == again.local.transcript.to_bytes()
        table = first.local.table
        state = table.start(first.local.genesis)
        for signed in first.records:
            state = table.apply(state, signed)
        assert state == first.states[-1]
