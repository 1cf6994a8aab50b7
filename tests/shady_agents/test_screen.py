"""Shady Agents as a table UI draws it: gifts face down ("a tool") except to their giver and
receiver, interrogations with the question and every answer, §7's breakdown and every role and
tool at the final reveal, and a history with no protocol step or card id (issue 12)."""

from __future__ import annotations

import re
from functools import cache

from spycraft.engines.shady_agents import GAME
from spycraft.engines.shady_agents.components import TOOL_NAMES
from spycraft.engines.shady_agents.screen import screen, story
from spycraft.engines.viewmodel import Grid, Screen

from .helpers import Played, play

TOOL = dict(TOOL_NAMES)


@cache
def game() -> Played:
    """A five-player game of random bots (the heuristic one is being tuned) with an answered
    interrogation that cost a discard."""
    for seed in range(1, 40):
        played = play(5, seed, "random")
        game = played.states[-1].game.game
        if game.discards and game.interrogations[0].answers:
            return played
    raise AssertionError("no seed gives an answered interrogation")


def grid(picture: Screen, title: str) -> Grid:
    return next(g for g in picture.board + (picture.result.reveal if picture.result else ())
                if g.title.startswith(title))


def test_a_gift_is_a_tool_face_down_to_everyone_but_its_giver_and_receiver() -> None:
    played = game()
    i = next(i for i, s in enumerate(played.states) if s.game.game.gifts)
    state = played.states[i]
    gift = state.game.game.gifts[0]
    kind = played.states[-1].game.gift_kinds[0]
    public = grid(screen(state, None, None), "Tools")
    assert public.rows[gift.receiver][2].text == f"a tool from seat {gift.giver}"
    assert public.rows[gift.giver][3].text == f"a tool to seat {gift.receiver}"
    for seat in (gift.giver, gift.receiver):
        view = played.local.seats[seat].view(state)
        mine = grid(screen(state, seat, view), "Tools")
        assert mine.rows[gift.receiver][2].text == f"a {TOOL[kind]} from seat {gift.giver}"
    other = next(s for s in range(5) if s not in (gift.giver, gift.receiver))
    theirs = grid(screen(state, other, played.local.seats[other].view(state)), "Tools")
    assert theirs.rows[gift.receiver][2].text == f"a tool from seat {gift.giver}"


def test_an_interrogation_shows_its_question_and_every_answer_or_who_was_not_eligible() -> None:
    played = game()
    end = played.states[-1]
    asked = end.game.game.interrogations[0]
    rows = grid(screen(end, None, None), "Interrogations").rows
    assert rows[0][1].text == asked.drawn.question
    cells = rows[0][2:]
    assert cells[asked.caller].text == "asks"
    said = {seat: answer for seat, answer, _ in asked.answers}
    for seat, cell in enumerate(cells):
        if seat in said:
            assert cell.text == str(said[seat])
        elif seat != asked.caller:
            assert cell.text == "not eligible"


def test_the_history_has_no_protocol_step_and_no_card_id() -> None:
    played = game()
    told = [story(played.states[i].game, r.record, played.states[i + 1].game)
            for i, r in enumerate(played.records)]
    lines = [e.text for e in told if e is not None]
    assert sum(line.startswith("Roles dealt and verified") for line in lines) == 1
    text = "\n".join(lines)
    for word in ("key_share", "shuffle", "deal_tokens", "beacon", "result"):
        assert word not in text
    assert not re.search(r"\bQ\d\d\b", text)
    asked = played.states[-1].game.game.interrogations[0]
    drawn = next(line for line in lines if " draws the question: " in line)
    assert drawn.startswith(f"Seat {asked.caller} draws the question: {asked.drawn.question}")
    assert GAME.story(played.states[0].game, played.records[0].record,
                      played.states[1].game) is None


def test_the_end_shows_section_7s_breakdown_and_every_role_and_tool() -> None:
    played = game()
    end = played.states[-1]
    roles, kinds = end.game.roles, end.game.gift_kinds
    values = [0] * 5
    for gift, kind in zip(end.game.game.gifts, kinds):
        values[gift.receiver] += 1 if kind == "M" else -1
    public = screen(end, None, None)
    result = public.result
    assert result is not None and end.result is not None
    winner = end.result.winner
    assert result.headline == (f"{winner} won" if winner else "Draw")
    rows = {row[0].text: [c.text for c in row] for row in grid(public, "Team scores").rows}
    for team, name in (("L", "Law-abiding"), ("C", "Corrupt")):
        members = [s for s in range(5) if roles[s] == team]
        bonus = 1 if end.game.game.leftover == team else 0
        assert rows[name][4] == str(sum(values[s] for s in members) + bonus)
        assert rows[name][3] == ("+1" if bonus else "")
        assert any(line.startswith(f"{name} {rows[name][4]}") for line in result.detail)
    reveal = grid(public, "The final reveal")
    names = {"L": "Law-abiding", "C": "Corrupt"}
    assert [row[1].text for row in reveal.rows] == [names[r] for r in roles]
    first_discard = end.game.game.discards[0]
    assert reveal.rows[first_discard.seat][5].text == TOOL[end.game.discard_kinds[0]]
    for seat in played.local.seats:
        mine = screen(end, seat.index, seat.view(end)).result
        assert mine is not None
        won = names[roles[seat.index]] == winner
        assert mine.headline == ("Draw" if winner is None else "You won" if won else "You lost")
