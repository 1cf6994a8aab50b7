"""Stratego: Spies & Lies as a table UI draws it: own pieces and what is known of the enemy's,
every score change with its reason (an infiltration named), abilities explained, the final
reveal of every deployment, and a narration without beacon noise (issue 12)."""

from __future__ import annotations

from functools import cache
from typing import Any

from spycraft.engines.spies_and_lies.model import RED, rank_label
from spycraft.engines.spies_and_lies.screen import ABILITIES, screen, story
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Event

from .support import honest_table


@cache
def game(seed: int = 3) -> tuple[Any, list[TableState[Any]]]:
    table, agents = honest_table(seed)
    states = [table.state]
    while table.step(agents) is not None:
        states.append(table.state)
    return table, states


def events(seed: int = 3) -> list[tuple[str, Event | None]]:
    table, states = game(seed)
    return [(r.record.kind, story(states[i].game, r.record, states[i + 1].game))
            for i, r in enumerate(table.records)]


def test_beacon_values_are_not_told_one_by_one_only_the_draw_they_complete() -> None:
    table, states = game()
    told = [(r.record.kind, story(states[i].game, r.record, states[i + 1].game))
            for i, r in enumerate(table.records)]
    lines = [(kind, event.text if event is not None else "") for kind, event in told]
    assert not any("beacon" in line for _, line in lines)
    beacons = [line for kind, line in lines if kind == "beacon"]
    assert "" in beacons  # the first value of a round
    assert any(line.startswith("Setup: ") for line in beacons)
    assert any(line.startswith("Intel card: ") for line in beacons)
    assert not any(line.startswith("Intel card: I") for line in beacons)  # no Intel card id


def test_every_score_change_says_why_and_an_infiltration_is_named() -> None:
    states = game()[1]
    told = events()
    for i, (kind, event) in enumerate(told):
        before, after = states[i].game.game, states[i + 1].game.game
        if before.markers != after.markers or before.da != after.da:
            assert event is not None and event.why, (kind, event)
    infiltration = next(e for _, e in told if e is not None and "infiltrates" in e.why)
    assert "markers reach 10" in infiltration.why and "Double Agent" in infiltration.why
    right = next(e for _, e in told if e is not None and "guessed right" in e.why)
    assert "+2 IP" in right.why and right.text.startswith(("Red reveals", "Blue reveals"))


def test_a_seat_sees_its_own_hidden_soldiers_and_only_what_is_deducible_of_the_enemys() -> None:
    table, states = game()
    i = next(i for i, s in enumerate(states)
             if s.game.game.phase == "mission" and s.game.game.cards[0][3].rank is None)
    state = states[i]
    red = table.seats[RED]
    own = red.view(state).deployment
    mine = screen(state, RED, red.view(state))
    cards = next(g for g in mine.board if g.title.endswith("the Mission cards"))
    assert cards.rows[0][4].text.startswith(f"your {rank_label(own[3])}, face down")
    assert cards.rows[0][4].tone == "you"
    assert cards.rows[1][4].text.startswith("face down")
    public = screen(state, None, None)
    cells = next(g for g in public.board if g.title.endswith("the Mission cards")).rows[0]
    assert not any(c.text.startswith("your") for c in cells)
    deployment = next(f for f in mine.private if f.label == "Your deployment")
    assert rank_label(own[0]) in deployment.text
    explained = {f.label: f.explain for f in mine.private if f.explain}
    for rank in own:
        assert explained[rank_label(rank)] == ABILITIES[rank]


def test_the_final_screen_reveals_every_deployment_and_says_who_won_from_each_side() -> None:
    table, states = game()
    end = states[-1]
    assert end.result is not None and end.result.winner is not None
    public = screen(end, None, None)
    assert public.result is not None
    assert public.result.headline == f"{end.result.winner} won"
    reveal = public.result.reveal[0]
    assert [row[0].text for row in reveal.rows] == ["Red", "Blue"]
    for side in (0, 1):
        ranks = [c.rank for c in end.game.game.cards[side]]
        assert [c.text for c in reveal.rows[side][1:]] == [rank_label(r) for r in ranks if r]
    for seat in table.seats:
        mine = screen(end, seat.index, seat.view(end)).result
        assert mine is not None
        won = ("Red", "Blue")[seat.index] == end.result.winner
        assert mine.headline == ("You won" if won else "You lost")


def test_the_table_ui_says_whose_turn_it_is() -> None:
    table, states = game()
    i = next(i for i, s in enumerate(states) if s.game.game.phase == "mission"
             and s.game.game.stage == "guess")
    board = states[i].game.game
    guesser = board.sp if board.step % 2 == 1 else 1 - board.sp
    seat = table.seats[guesser]
    now = next(f for f in screen(states[i], guesser, seat.view(states[i])).status
               if f.label == "Now")
    assert now.tone == "turn" and "guesses" in now.text


def test_a_revealed_sergeant_says_whether_its_intel_token_lied() -> None:
    """Rules §9: whether a Sergeant's token is a lie becomes public when it is revealed."""
    from spycraft.engines.spies_and_lies.model import SERGEANT, forced_token

    seen = []
    for seed in range(1, 8):
        table, states = game(seed)
        for i, r in enumerate(table.records):
            if r.record.kind != "reveal" or r.record.body["rank"] != SERGEANT:
                continue
            board = states[i + 1].game.game
            card = next(c for c in board.cards[r.seat] if c.rank == SERGEANT)
            lied = card.token != forced_token(SERGEANT, board.current)
            event = story(states[i].game, r.record, states[i + 1].game)
            assert event is not None
            said = "its Intel token lied" if lied else "its Intel token told the truth"
            assert said in event.text, event.text
            seen.append(lied)
    assert seen, "no Sergeant was revealed in these games"


def test_the_end_of_a_day_says_which_soldiers_each_side_kept_back() -> None:
    """Rules §9: which soldiers stayed undeployed is public once all four cards are revealed."""
    from spycraft.engines.spies_and_lies.model import hand

    states = game()[1]
    i = next(i for i, (kind, e) in enumerate(events())
             if kind == "beacon" and e is not None and e.text.startswith("End of day 1"))
    day = states[i].game.game  # the board of day 1, every card face up
    kept = [" ".join(str(r) for r in hand(day, s) if r not in {c.rank for c in day.cards[s]})
            for s in (0, 1)]
    event = events()[i][1]
    assert event is not None
    assert f"(Red kept back {kept[0]}; Blue kept back {kept[1]})" in event.text, event.text
