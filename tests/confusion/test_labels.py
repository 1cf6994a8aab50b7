"""Confusion's options in words: every label a person reads at a prompt names spies as the board
does (``W-C``), squares as the board writes them (``f5``) and lines from the spy owner's side, is
unique within its decision, and is easy to type (a short prefix or a word names one option)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from spycraft.cli.tui import choose
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Decision
from spycraft.engines.confusion import GAME, model
from spycraft.engines.confusion.board import RED
from spycraft.engines.confusion.bots import BOTS
from spycraft.engines.confusion.seat import (
    announce_label,
    announce_options,
    free_label,
    token_label,
)
from spycraft.engines.local import new_local_table
from tests.conformance.games import Recording

from .test_rules import ann, play


def decision(kind: str, options: list[Any], labels: list[str]) -> Decision:
    assert len(set(labels)) == len(labels), labels
    return Decision(0, kind, "?", tuple(options), tuple(labels), None)


def picked(d: Decision, typed: str) -> Any:
    """The option a person names by typing ``typed`` (the line must name exactly one)."""
    index = choose(d, typed)
    assert index is not None, typed
    return d.options[index]


def announce_decision(g: model.Game) -> Decision:
    options = announce_options(g)
    return decision("announce", options, [announce_label(g, a) for a in options])


def test_a_move_names_the_spy_the_line_from_its_owners_side_and_the_square() -> None:
    white = play(step="announce")
    assert announce_label(white, ann("W-C", "move", "f4")) == "W-C moves forward 3 to f4"
    red = play(step="announce", turn=RED)
    assert announce_label(red, ann("R-C", "move", "f9")) == "R-C moves forward 2 to f9"
    assert announce_label(red, ann("R-C", "move", "g10")) == "R-C moves forward-left 1 to g10"


def test_a_spy_on_the_briefcase_leaves_carries_or_throws_it() -> None:
    g = play({"W-C": "f6"}, step="announce")
    labels = announce_decision(g).labels
    assert "W-C leaves the briefcase and moves forward 2 to f8" in labels
    assert "W-C carries the briefcase forward 2 to f8" in labels
    assert "W-C throws the briefcase back 1 to f5" in labels
    assert not any("move f" in label or "_" in label for label in labels)


def test_moves_are_typed_by_a_short_prefix_or_the_whole_label() -> None:
    g = play({"W-C": "f6"}, step="announce")
    d = announce_decision(g)
    assert choose(d, "w-c moves forward 2") is None  # W-C controls the briefcase: say how
    assert picked(d, "W-C carries the briefcase forward 2") == ann("W-C", "carry", "f8")
    assert picked(d, "w-a moves forward 4") == ann("W-A", "move", "b5")
    assert picked(d, "#1") == ann("W-A", "move", "a1")
    for i, label in enumerate(d.labels):
        assert choose(d, label) == i
        assert choose(d, "  " + label.upper() + " ") == i


def test_tokens_and_free_actions_name_spies_where_they_stand() -> None:
    g = play({"W-C": "f6", "R-F": "e7"}, step="token", tokens=True)
    options = model.token_options(g) + [("resign", ())]
    labels = [token_label(g, t, s) for t, s in options]
    d = decision("token", options, labels)
    assert labels[0] == "no token" and labels[-1] == "resign"
    assert "reveal W-C's type" in labels
    assert "double: two moves with two spies" in labels
    assert "swap W-A on b1 and W-C on f6" in labels
    assert picked(d, "double") == ("double", ())
    assert picked(d, "reveal w-c") == ("reveal", ("W-C",))

    free = model.free_options(replace(g, step="free"), "R-F")
    labels = [free_label(g, a, s) for a, s in free]
    d = decision("free_action", free, labels)
    assert labels[0] == "no free action" and labels[-1] == "resign"
    assert "remove your own spy W-C from f6" in labels
    assert "eliminate Red's Double Agent R-F on e7" in labels
    assert picked(d, "eliminate") == ("eliminate_opp_da", "R-F")
    assert picked(d, "no") == ("none", None)
    assert picked(d, "remove your own spy w-c") == ("eliminate_own", "W-C")


def asked_answers(seed: int, enough: int) -> list[Decision]:
    """The answer decisions of a random game (tokens on) until ``enough`` were DA answers."""
    asked: list[Decision] = []
    entropy = SeededEntropy(seed)
    local = new_local_table(GAME, {"tokens": True, "first": "random"}, 2, entropy)
    agents = [Recording(BOTS["random"](entropy.child(f"bot/{i}"), i), asked) for i in range(2)]
    while sum(len(d.options) == 2 for d in asked if d.kind == "answer") < enough:
        assert local.step(agents) is not None
    return [d for d in asked if d.kind == "answer"]


def test_the_double_agents_answer_is_asked_in_words() -> None:
    """Seed 1 reaches a Double Agent's answer within a few turns (random bots, tokens on)."""
    answer = next(d for d in asked_answers(1, 1) if len(d.options) == 2)
    assert answer.labels == ("yes", "no")
    assert answer.prompt.startswith(("White announces W-", "Red announces R-"))
    assert "Double Agent: answer yes or no" in answer.prompt
    assert " move " not in answer.prompt and "(" not in answer.prompt


def test_every_forced_answer_is_asked_too_with_its_one_answer() -> None:
    """So that a person is asked for every answer alike (timing never tells who decided), a
    forced answer is a decision with the one option its type allows, said in words."""
    forced = [d for d in asked_answers(1, 1) if len(d.options) == 1]
    assert forced
    for d in forced:
        (yes,) = d.options
        assert d.labels == ("yes" if yes else "no",)
        assert d.prompt.startswith(("White announces W-", "Red announces R-"))
        assert d.prompt.endswith(f": the answer is {d.labels[0]}")
        assert " is a " in d.prompt or " is an " in d.prompt
        assert "Double Agent" not in d.prompt and "(" not in d.prompt
        assert picked(d, d.labels[0]) == yes


class Enter:
    """A person who presses Enter at every prompt (the first option), and notes each move menu
    with the game it was offered in."""

    def __init__(self, local: Any, menus: list[tuple[model.Game, Decision]]) -> None:
        self.local, self.menus = local, menus

    def decide(self, decision: Decision) -> int:
        if decision.kind == "announce":
            self.menus.append((self.local.state.game.game, decision))
        return 0


def test_enter_never_repeats_a_refused_move_and_the_menu_says_which_ones_were_refused() -> None:
    """Issue 19.6: the notebook knows which moves were refused; the menu offers them last,
    marked, so a person pressing Enter turn after turn tries something new."""
    from spycraft.engines.confusion.movement import check_announcement
    from spycraft.engines.confusion.notebook import REFUSED, RULED_OUT, local_candidates, probe

    entropy = SeededEntropy(4)
    local = new_local_table(GAME, {"tokens": False, "first": "white"}, 2, entropy)
    menus: list[tuple[model.Game, Decision]] = []
    agents = [Enter(local, menus), BOTS["heuristic"](entropy.child("bot/1"), 1)]
    for _ in range(300):
        if local.step(agents) is None:
            break
    marked = 0
    for g, menu in menus:
        notes = []
        for a, label in zip(menu.options, menu.labels):
            move = check_announcement(g.board, g.turn, a)
            refused = a.spy not in g.board.promoted and any(
                o.spy == a.spy and o.kind == "no" and o.line == move for o in g.log)
            ruled_out = a.spy not in g.board.promoted and not refused and \
                not probe(local_candidates(g.log, a.spy), move)[0]
            note = REFUSED if refused else RULED_OUT if ruled_out else ""
            assert label.endswith(f" ({note})") if note else "(" not in label, label
            notes.append(note)
        assert notes == sorted(notes, key=bool), "every marked move comes after the others"
        if not all(notes):
            assert not notes[0], menu.labels[0]  # Enter takes a move not yet refused
        marked += sum(bool(n) for n in notes)
    assert len(menus) > 10 and marked > 0, (len(menus), marked)
