"""The Resistance as a table UI draws it: the vote grid, the mission track, the plot cards by
name with their rules, why the score moved, and the final reveal (issue 12)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from spycraft.cli.main import main
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.screen import PLOT_RULES, screen, story
from spycraft.engines.resistance.seat import label
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Grid, Screen

GAME = registry.load("resistance")


@cache
def game(
    seed: int = 3, players: int = 7, plot: bool = True, bot: str = "heuristic"
) -> tuple[LocalTable, list[TableState[Any]]]:
    entropy = SeededEntropy(seed)
    options = GAME.genesis_options(players, {"plot": True} if plot else {})
    local = new_local_table(GAME, options, players, entropy.child("table"))
    agents = [GAME.bots[bot](entropy.child(f"bot/{i}"), i) for i in range(players)]
    states = [local.state]
    while local.step(agents) is not None:
        states.append(local.state)
    return local, states


def grid(picture: Screen, title: str) -> Grid:
    return next(g for g in picture.board if g.title.startswith(title))


def first(states: list[TableState[Any]], test: Any) -> int:
    return next(i for i, s in enumerate(states) if test(s.game.game))


def test_the_plot_deal_and_take_responsibility_offer_cards_by_name_never_by_id() -> None:
    deal = label("plot_deal", (("P10", 0), ("P03", 1)))
    assert deal == "In the Spotlight to seat 0, No Confidence to seat 1"
    assert label("take_responsibility", (2, "P06")) == "take Opinion Maker from seat 2"
    for text in (deal, label("take_responsibility", (2, "P06"))):
        assert not re.search(r"\bP\d\d\b|->", text)


def test_a_vote_adds_a_row_to_the_vote_grid_with_every_seats_vote_and_the_result() -> None:
    states = game()[1]
    i = first(states, lambda g: len(g.vote_log) == 1)
    record = states[i].game.game.vote_log[0]
    votes = grid(screen(states[i], None, None), "Votes")
    assert votes.columns[:4] == ("Round", "Mission", "Leader", "Team")
    assert votes.columns[4:-1] == tuple(f"{s}" for s in range(7))
    row = votes.rows[0]
    assert [c.text for c in row[:4]] == ["1", "1", f"seat {record.leader}",
                                         "1 4"]
    assert [c.text for c in row[4:-1]] == ["yes" if v else "no" for v in record.votes]
    assert row[-1].text == ("approved" if record.approved else "rejected")
    before = grid(screen(states[i - 1], None, None), "Votes")
    assert before.rows[-1][-1].text == "voting"  # the proposal being voted on, votes unseen
    assert {c.text for c in before.rows[-1][4:-1]} == {"?"}


def test_a_mission_names_its_team_leader_and_result_and_says_why_the_score_moved() -> None:
    local, states = game()
    i = first(states, lambda g: g.results[0] is not None)
    result = states[i].game.game.results[0]
    assert result is not None and result.failed
    missions = grid(screen(states[i], None, None), "Missions")
    texts = [c.text for c in missions.rows[0]]
    assert texts == ["1", "seats 1 and 4", "1", f"seat {result.leader}", "failed (1 Fail)"]
    assert missions.rows[0][-1].tone == "bad"
    event = story(states[i - 1].game, local.records[i - 1].record, states[i].game)
    assert event is not None and event.text.startswith("Mission 1 (seats 1 and 4")
    assert "a point for the Spies" in event.why and "1 Fail card played" in event.why


def test_the_setup_is_one_line_and_hidden_steps_tell_nothing() -> None:
    local, states = game()
    events = [story(states[i].game, r.record, states[i + 1].game)
              for i, r in enumerate(local.records)]
    told = [e.text for e in events if e is not None]
    assert sum("Roles dealt and verified" in t for t in told) == 1
    quiet = [r.record.kind for r, e in zip(local.records, events) if e is None]
    assert {"vote_commit", "mix", "mission_shares", "key_share", "beacon"} <= set(quiet)


def test_plot_cards_in_hand_are_named_and_explain_themselves() -> None:
    local, states = game()
    i = first(states, lambda g: any(g.hands))
    holder = next(s for s, hand in enumerate(states[i].game.game.hands) if hand)
    card = states[i].game.game.hands[holder][0]
    public = screen(states[i], None, None)
    hands = grid(public, "Plot cards")
    assert R.TITLES[R.card_type(card)] in hands.rows[holder][1].text
    seat = local.seats[holder]
    mine = screen(states[i], holder, seat.view(states[i]))
    fact = next(f for f in mine.private if f.label == "Your plot card")
    assert fact.text == R.TITLES[R.card_type(card)]
    assert fact.explain.startswith(PLOT_RULES[R.card_type(card)])


def test_a_seat_sees_its_role_and_a_spy_sees_the_other_spies_but_the_public_sees_neither() -> None:
    local, states = game()
    end = states[-1]
    roles = end.game.roles
    spies = [s for s, role in enumerate(roles) if role == "spy"]
    spy = local.seats[spies[0]]
    middle = states[len(states) // 2]
    facts = {f.label: f.text for f in screen(middle, spy.index, spy.view(middle)).private}
    assert facts["Your role"] == "Spy"
    others = [s for s in spies if s != spy.index]
    assert facts["The other spies"] == f"seats {others[0]} and {others[1]}"
    assert screen(middle, None, None).private == ()


def test_the_final_screen_names_the_deciding_mission_and_reveals_roles_and_cards() -> None:
    local, states = game()
    end = states[-1]
    public = screen(end, None, None)
    assert public.result is not None
    assert public.result.headline == "The Spies won"
    assert public.result.detail[0] == "The Spies win: three missions failed"
    assert public.result.detail[1].startswith("The deciding mission 3 (seats 1, 2 and 3")
    reveal = public.result.reveal[0]
    roles = {row[0].text: row[1].text for row in reveal.rows}
    assert roles == {f"seat {s}": "Spy" if r == "spy" else "Resistance"
                     for s, r in enumerate(end.game.roles)}
    assert reveal.columns[2:] == ("Mission 1", "Mission 2", "Mission 3")
    played = [row[2:] for row in reveal.rows]
    assert sum(c.text == "Fail" for row in played for c in row) == 3  # one Fail per mission
    resistance = next(s for s, r in enumerate(end.game.roles) if r != "spy")
    seat = local.seats[resistance]
    mine = screen(end, resistance, seat.view(end)).result
    assert mine is not None and mine.headline == "You lost"


def test_selfplay_ends_with_the_result_in_words(capsys: Any) -> None:
    assert main(["selfplay", "resistance", "--seed", "3", "--quiet"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert re.fullmatch(r"result: (Spies|Resistance) won \([a-z ]+\)", last), last


def test_a_vote_by_one_seat_reads_as_a_sentence() -> None:
    local, states = game(bot="random")  # five rejections, one with a single approval
    lines = [story(states[i].game, r.record, states[i + 1].game) for i, r in
             enumerate(local.records)]
    votes = [e.text for e in lines if e is not None and e.text.startswith("Votes: ")]
    assert any(re.search(r"^Votes: seat \d approves;", text) for text in votes), votes
    assert not any("FAILED" in e.text for e in lines if e is not None)


def told(local: LocalTable, states: list[TableState[Any]]) -> list[str]:
    events = [story(states[i].game, r.record, states[i + 1].game)
              for i, r in enumerate(local.records)]
    return [e.text for e in events if e is not None]


def test_take_responsibility_names_the_card_taken_and_its_previous_owner() -> None:
    local, states = game(seed=5)
    (seat, _, (owner, taken)) = next(
        p for p in states[-1].game.game.plays
        if R.card_type(p[1]) == R.TAKE_RESPONSIBILITY and p[2] != "dealt")
    line = f"Seat {seat} plays Take Responsibility: takes {R.TITLES[R.card_type(taken)]} " \
           f"from seat {owner}"
    assert any(text.startswith(line) for text in told(local, states)), told(local, states)


def test_the_opinion_makers_vote_is_written_as_it_is_shown() -> None:
    local, states = game(seed=5)
    i = first(states, lambda g: g.opinion_step)
    maker = states[i].game.game.voters[0]
    j = next(k for k in range(i, len(states)) if not states[k].game.game.opinion_step)
    vote = states[j].game.game.votes[maker]
    line = f"Opinion Maker seat {maker} votes first, face up: {'approve' if vote else 'reject'}"
    event = story(states[j - 1].game, local.records[j - 1].record, states[j].game)
    assert event is not None and event.text == line, event


class Asked:
    """A bot that notes the question of every proposal it is asked."""

    def __init__(self, bot: Any, asked: list[str]) -> None:
        self.bot, self.asked = bot, asked

    def decide(self, decision: Any) -> int:
        if decision.kind == "propose":
            self.asked.append(decision.prompt)
        choice: int = self.bot.decide(decision)
        return choice


def test_the_leader_is_asked_for_a_mission_only_under_targeting() -> None:
    from spycraft.engines.resistance.seat import prompt

    for targeting in (False, True):
        entropy = SeededEntropy(2)
        options = GAME.genesis_options(5, {"targeting": True} if targeting else {})
        local = new_local_table(GAME, options, 5, entropy.child("table"))
        asked: list[str] = []
        local.run([Asked(GAME.bots["heuristic"](entropy.child(f"bot/{s}"), s), asked)
                   for s in range(5)])
        if targeting:
            assert set(asked) == {"Propose a mission and a team"}
        else:
            assert asked[0] == "Propose a team for mission 1", asked
            assert "Propose a mission and a team" not in asked
    assert prompt(local.state.game.game, "vote", (True, False)) == "Approve this team?"


def test_the_missions_table_shows_the_team_once_it_is_known() -> None:
    states = game()[1]
    proposed = first(states, lambda g: g.proposal is not None and g.phase == R.VOTE)
    game_ = states[proposed].game.game
    assert game_.proposal is not None
    team = grid(screen(states[proposed], None, None), "Missions").rows[0][1].text
    assert team == f"{seats_text(game_.proposal.team)} (proposed)"
    going = first(states, lambda g: g.phase == R.MISSION_PLAY)
    row = grid(screen(states[going], None, None), "Missions").rows[0]
    assert row[1].text == seats_text(states[going].game.game.proposal.team)
    assert row[-1].text == "on the way"
    later = grid(screen(states[going], None, None), "Missions").rows[4]
    assert later[1].text.endswith("players") or "players;" in later[1].text  # not yet known


def seats_text(team: tuple[int, ...]) -> str:
    from spycraft.engines.screens import seat_list

    return seat_list(team)
