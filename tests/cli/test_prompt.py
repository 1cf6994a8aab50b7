"""What a person types at the prompt: teams in any form, a guess by its number or name, Tab."""

from __future__ import annotations

from itertools import combinations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from spycraft.cli.tui import Hint, LabelCompleter, choose
from spycraft.engines.agent import Decision
from spycraft.engines.resistance.model import Proposal
from spycraft.engines.resistance.seat import label as resistance_label
from spycraft.engines.spies_and_lies.model import RANKS, rank_label
from spycraft.engines.spies_and_lies.seat import deployment_label


def team_decision(players: int, size: int) -> Decision:
    options = tuple(Proposal(1, team) for team in combinations(range(players), size))
    labels = tuple(resistance_label("propose", o) for o in options)
    return Decision(0, "propose", "Propose a team", options, labels, None)


def guess_decision() -> Decision:
    return Decision(0, "guess", "Guess", RANKS, tuple(rank_label(r) for r in RANKS), None)


@pytest.mark.parametrize("typed", ["0 2", "0,2", "2 0", "2,0", "0, 2", "0-2", "0 and 2", "02",
                                   " 2  0 "])
def test_a_team_is_understood_in_every_order_and_separator(typed):
    decision = team_decision(5, 2)
    index = choose(decision, typed)
    assert index is not None
    assert decision.options[index].team == (0, 2)


def test_a_team_at_ten_players_is_typed_by_its_seats():
    decision = team_decision(10, 5)
    assert decision.options[choose(decision, "9 7 5 3 1")].team == (1, 3, 5, 7, 9)


def test_a_team_of_the_wrong_size_or_an_unknown_seat_is_a_one_line_hint():
    decision = team_decision(5, 2)
    with pytest.raises(Hint, match="2 seats; you named 3"):
        choose(decision, "0 1 2")
    with pytest.raises(Hint, match="no seat 7"):
        choose(decision, "0 7")
    with pytest.raises(Hint, match="once"):
        choose(decision, "1 1")


def test_a_guess_of_1_is_the_spy_even_though_10_also_starts_with_1():
    decision = guess_decision()
    assert decision.options[choose(decision, "1")] == 1
    assert decision.options[choose(decision, "10")] == 10
    for typed in ("Spy", "spy", "SPY", "marshal"):
        index = choose(decision, typed)
        assert index is not None
        assert decision.labels[index].lower().endswith(typed.lower())


def test_the_older_forms_still_work():
    decision = guess_decision()
    assert decision.options[choose(decision, "#3")] == 3
    assert decision.options[choose(decision, "4 sergeant")] == 4
    vote = Decision(0, "vote", "Approve?", (True, False), ("approve", "reject"), None)
    assert choose(vote, "app") == 0
    assert choose(vote, "2") == 1
    assert choose(vote, "maybe") is None


def test_tab_completes_after_a_dash_at_deploy():
    labels = [deployment_label(r) for r in ((1, 2, 4, 5), (3, 4, 6, 9), (3, 5, 4, 6), (3, 5, 6, 7))]
    completer = LabelCompleter(labels)

    def complete(typed: str) -> list[str]:
        done = completer.get_completions(Document(typed), CompleteEvent(completion_requested=True))
        return [c.text for c in done]

    assert complete("3-5") == ["3-5-4-6", "3-5-6-7"]
    assert complete("3-") == ["3-4-6-9", "3-5-4-6", "3-5-6-7"]
    completion = next(iter(completer.get_completions(Document("3-4"), CompleteEvent())))
    assert completion.start_position == -3  # the whole typed line is replaced, dash included


def test_a_name_from_a_peer_reaches_the_terminal_without_escape_sequences():
    from spycraft.cli.outcome import roster

    line = roster(["ada", "\x1b[2J\x1b]0;owned\x07eve\r\n"], 0)
    assert "\x1b" not in line and "\x07" not in line and "\r" not in line and "\n" not in line
    assert line.startswith("at the table: seat 0 ada (you), seat 1 ?[2J?]0;owned?eve")
