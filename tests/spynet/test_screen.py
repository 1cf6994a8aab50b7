"""SpyNet's view model: what each seat's screen shows, what it must not, and the story it tells.

Games are real seeded tables (``engines.local``) played by the bots; every check reads the
``Screen`` or ``Event`` a UI would draw, against the engine's own state.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.cards import BRANCHES, CARDS, Kind
from spycraft.engines.spynet.scoring import dominators
from spycraft.engines.spynet.screen import card_explain, card_line, screen, story
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Event, Screen
from tests.conformance.games import live_steps


@cache
def played(players: int, seed: int, situation: str = "off") -> tuple[LocalTable, tuple[Any, ...]]:
    """A whole bot game: the table and, for every record, (state before, record, state after,
    each seat's view right after it, taken live: a seat's view of an old state read later would
    know cards it saw only later)."""
    entropy = SeededEntropy(seed)
    local = new_local_table(GAME, {"situation": situation}, players, entropy)
    agents = [BOTS["heuristic"](entropy.child(f"bot/{i}"), i) for i in range(players)]
    return local, live_steps(local, agents)


def texts(view: Screen) -> list[str]:
    """Every text of a screen a person could read."""
    found = [f.label + " " + f.text + " " + f.explain for f in view.status + view.private]
    for grid in view.board + (view.result.reveal if view.result else ()):
        found += [grid.title, *grid.columns]
        found += [cell.text for row in grid.rows for cell in row]
    found += list(view.notes)
    if view.result is not None:
        found += [view.result.headline, *view.result.detail]
    return found


def events(players: int, seed: int) -> list[Event]:
    _, steps = played(players, seed)
    told = [story(before.game, record, after.game) for before, record, after, _ in steps]
    return [e for e in told if e is not None]


def state_where(players: int, seed: int, found: Any) -> TableState[Any]:
    _, steps = played(players, seed)
    return next(after for _, _, after, _ in steps if found(after.game))


def test_a_special_agent_explains_its_effect_with_its_threshold() -> None:
    assert "power 3 or less" in card_explain("A21")  # Mole Hunter
    assert "Signals stack, whatever its power" in card_explain("A27")  # Codebreaker
    wetwork = card_explain("A23")
    assert "discard an agent from your hand" in wetwork and "printed power" in wetwork
    assert "2 more agents this turn, without funding" in card_explain("A28")
    assert "any opposing agent" in card_explain("A26", "S08")  # Deep Infiltration widens it


def test_a_card_line_names_the_card_its_branch_and_its_number() -> None:
    assert card_line("A05") == "Spymaster (Intelligence agent, power 5)"
    assert card_line("M30") == "Satellite Link (Technology or Signals mission, 2 stars, " \
        "with a condition)"
    assert card_line("F08") == "Swiss Account (funding, value 3)"
    assert "each of its two branches" in card_explain("M30")
    assert "adds 1 power" in card_explain("F08", "S02")  # Austerity


def test_the_hand_is_listed_card_by_card_with_its_rules() -> None:
    _, steps = played(2, 3)
    for _, _, after, views in steps[::25]:
        for seat in range(2):
            view = views[seat]
            drawn = screen(after, seat, view)
            hand = [f for f in drawn.private if f.label == "In hand"]
            assert [f.text for f in hand] == [card_line(face) for _, face in view.hand]
            assert all(f.explain for f in hand)


def test_piles_show_their_sizes_and_only_what_this_seat_saw() -> None:
    _, steps = played(2, 3)
    checked = 0
    for _, _, after, views in steps:
        game = after.game.game
        if game is None:
            continue
        for seat in range(2):
            view = views[seat]
            grid = next(g for g in screen(after, seat, view).board if g.title == "Deck and piles")
            rows = {row[0].text: row for row in grid.rows}
            assert rows["deck"][1].text == str(len(game.deck))
            for k in (1, 2, 3):
                assert rows[f"pile {k}"][1].text == str(len(game.piles[k - 1]))
                seen = [CARDS[f].name for f in view.piles[k - 1] if f is not None]
                assert rows[f"pile {k}"][2].text == ", ".join(seen)
                checked += bool(seen)
    assert checked, "some seat saw a pile"


def test_a_face_down_mission_is_named_only_to_its_owner() -> None:
    _, steps = played(2, 3)
    _, _, last_play, views = next(s for s in reversed(steps) if s[2].game.act == "play")
    game = last_play.game.game
    hidden: dict[int, list[str]] = {}
    for seat in range(2):
        own = [CARDS[face].name for _, face in views[seat].missions]
        hidden[seat] = own
        assert own, f"seat {seat} played missions in this game"
    for seat in range(2):
        other = 1 - seat
        words = " ".join(texts(screen(last_play, seat, views[seat])))
        public = " ".join(texts(screen(last_play, None, None)))
        for name in hidden[other]:
            named = re.compile(rf"\b{re.escape(name)}\b")
            assert not named.search(words) and not named.search(public), name
        for name in hidden[seat]:
            assert re.search(rf"\b{re.escape(name)}\b", words)
    assert game.phase != M.END


def test_dominance_is_shown_per_branch_with_the_power_of_every_seat() -> None:
    after = state_where(2, 3, lambda s: s.game is not None and s.game.board.tableaux[0].stacks[0])
    game = after.game.game
    grid = next(g for g in screen(after, 0, None).board if g.title.startswith("Agents"))
    for row, branch in zip(grid.rows, BRANCHES):
        holders = dominators(game.board, branch)
        assert row[-1].text == (", ".join(f"seat {s}" for s in holders) or "nobody")
        for seat in range(2):
            assert row[1 + seat].text.startswith("power ")
            if seat in holders:
                assert row[1 + seat].tone == ("good" if seat == 0 else "bad")


def test_the_final_screen_says_who_won_from_each_side_with_the_breakdown() -> None:
    local, _ = played(2, 3)
    end = local.state
    final = end.game.final
    assert final is not None and end.result is not None
    winner = end.result.winner
    assert screen(end, None, None).result.headline == f"{winner.capitalize()} won"
    for seat in range(2):
        result = screen(end, seat, local.seats[seat].view(end)).result
        assert result is not None
        assert result.headline == ("You won" if winner == f"seat {seat}" else "You lost")
        assert result.tone == ("good" if winner == f"seat {seat}" else "bad")
        missions = next(g for g in result.reveal if g.title == "Missions scored")
        assert len(missions.rows) == len(final.missions)
        for seat_points, s in zip(final.seat_points, range(2)):
            rows = [r for r in missions.rows if r[0].text == f"seat {s}"]
            assert sum(int(r[-1].text) for r in rows) == seat_points
        failed = [r for r in missions.rows if r[-1].text == "0"]
        assert all(r[4].text.endswith("not met") for r in failed)


def test_the_score_change_says_why_mission_by_mission() -> None:
    local, _ = played(2, 3)
    final = local.state.game.final
    told = events(2, 3)
    scored = [e for e in told if e.why]
    assert len(scored) == 1, "the score changes once, at the final reveal"
    why = scored[0].why
    for team, points in zip(final.teams, final.points):
        assert f"Seat {team[0]}: {points} = " in why
    zero = next((m for m in final.missions if not m.holds), None)
    if zero is not None:
        assert f"{CARDS[zero.mission].name} 0 (needs " in why


def test_the_story_tells_plays_by_card_name_and_never_the_protocol() -> None:
    told = events(2, 3)
    lines = [e.text for e in told]
    assert lines[0] == "The deck is shuffled by every player, each shuffle proven"
    assert any(re.match(r"Seat \d plays first; situation in play: none", t) for t in lines)
    plays = [t for t in lines if " into " in t and "power there" in t]
    assert plays
    agent_names = {c.name for c in CARDS.values() if c.kind in (Kind.AGENT, Kind.SPECIAL_AGENT,
                                                                  Kind.MERCENARY)}
    assert all(any(name in t for name in agent_names) for t in plays)
    for t in lines:
        assert not re.search(r"\b[AMFS]\d\d\b|deck_|_", t), t
    assert lines[-1].endswith("won on points")


def test_a_four_player_result_speaks_for_the_viewers_team() -> None:
    local, _ = played(4, 7)
    end = local.state
    assert end.result is not None
    for seat in range(4):
        view = screen(end, seat, local.seats[seat].view(end))
        team = (0, 2) if seat in (0, 2) else (1, 3)
        assert view.result is not None
        if end.result.winner == f"team {team[0]}+{team[1]}":
            assert view.result.headline == "You won"
        elif end.result.winner is not None:
            assert view.result.headline == "You lost"
        partner = next(f for f in view.private if f.label == "Partner")
        assert partner.text == f"seat {(seat + 2) % 4}"


@pytest.mark.parametrize("situation", ["S03", "S07"])
def test_a_situation_is_named_and_explained(situation: str) -> None:
    local, steps = played(2, 11, situation)
    view = screen(local.state, 0, local.seats[0].view(local.state))
    fact = next(f for f in view.status if f.label == "Situation")
    assert fact.text == CARDS[situation].name and fact.explain == CARDS[situation].text
    told = [story(b.game, r, a.game) for b, r, a, _ in steps]
    if situation == "S03":
        assert any(e is not None and "face up (Open Secrets)" in e.text for e in told)
        assert not any(e is not None and "mission face down" in e.text for e in told)


def test_replay_as_a_seat_draws_what_that_seat_saw_live() -> None:
    _, steps = played(2, 3)
    assert GAME.hindsight is not None
    states = [steps[0][0].game] + [after.game for _, _, after, _ in steps]
    for seat in range(2):
        hindsight = GAME.hindsight(states, seat)
        for i in range(0, len(steps), 7):
            after, live = steps[i][2], steps[i][3][seat]
            assert screen(after, seat, hindsight[i + 1]) == screen(after, seat, live)
