"""SpyNet's options in words: cards by their printed names, branches by their full names, effect
targets by their owner, name and stack; unique within a decision (two cards of the same name are
told apart by their order in the hand) and typed at the line prompt as a whole label, a unique
prefix, a word or ``#N``.

The tables are real: a protocol state of a seeded game, with its public game replaced by the
situation under test, and the options are the model's own (``model.deploy_options``,
``model.effect_options``), the lists a seat offers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from typing import Any

from spycraft.cli.tui import choose
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Decision
from spycraft.engines.local import new_local_table
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.cards import Branch
from spycraft.engines.spynet.labels import describe_option
from spycraft.engines.spynet.rules import State
from spycraft.engines.spynet.view import SeatView
from tests.conformance.games import Recording

from .support import board, tableau

INT, OPS, TEC, SIG = Branch.INT, Branch.OPS, Branch.TEC, Branch.SIG


@cache
def a_state(players: int) -> State:
    """A protocol state of a real table of ``players`` seats, once its game has begun."""
    entropy = SeededEntropy(3)
    local = new_local_table(GAME, {"situation": "off"}, players, entropy)
    agents = [BOTS["random"](entropy.child(f"bot/{i}"), i) for i in range(players)]
    while local.state.game.game is None:
        assert local.step(agents) is not None
    state: State = local.state.game
    return state


def view_of(game: M.Game, hand: tuple[tuple[int, str], ...] = (), seat: int = 0,
            piles: tuple[tuple[str | None, ...], ...] = ((), (), ()),
            draft: tuple[tuple[int, str], ...] = ()) -> SeatView:
    state = replace(a_state(game.n), game=game)
    return SeatView(state, seat, hand, piles, (), draft)


def decision(kind: str, options: tuple[Any, ...], view: SeatView) -> Decision:
    labels = tuple(describe_option(kind, o, view) for o in options)
    assert len(set(labels)) == len(labels), labels
    return Decision(view.seat, kind, "?", options, labels, view)


def picked(d: Decision, typed: str) -> Any:
    index = choose(d, typed)
    assert index is not None, typed
    return d.options[index]


def deploy(game: M.Game, hand: tuple[tuple[int, str], ...], seat: int = 0) -> Decision:
    game = replace(game, phase=M.DEPLOY, current=seat,
                   hands=tuple(tuple(p for p, _ in hand) if s == seat else () for s in
                               range(game.n)))
    view = view_of(game, hand, seat)
    return decision("deploy", M.deploy_options(game, seat, hand), view)


def test_a_deploy_names_agents_funding_missions_and_branches() -> None:
    hand = ((10, "A05"), (11, "F05"), (12, "A29"), (13, "M01"))
    game = M.Game(n=2, board=board(tableau("INT: A01"), tableau()))
    d = deploy(game, hand)
    assert d.labels == (
        "play Spymaster into Intelligence",
        "play Spymaster with Slush Fund into Intelligence",
        "play Freelancer into Intelligence",
        "play Freelancer with Slush Fund into Intelligence",
        "play Freelancer into Operations",
        "play Freelancer with Slush Fund into Operations",
        "play Freelancer into Technology",
        "play Freelancer with Slush Fund into Technology",
        "play Freelancer into Signals",
        "play Freelancer with Slush Fund into Signals",
        "play the mission Dead Drop in Intelligence",
        "end your turn",
    )
    assert picked(d, "end") == ("end_deploy",)
    assert picked(d, "play spymaster with") == ("play_agent", 10, INT, (11,))
    assert picked(d, "dead") == ("play_mission", 13, INT)
    assert picked(d, "#1") == ("play_agent", 10, INT, ())


def test_two_funding_cards_of_one_name_are_told_apart_by_their_order_in_the_hand() -> None:
    hand = ((20, "F01"), (21, "A03"), (22, "F02"), (23, "F08"))
    d = deploy(M.Game(n=2, board=board(tableau(), tableau())), hand)
    assert "play Case Officer with the first Petty Cash into Intelligence" in d.labels
    assert "play Case Officer with the second Petty Cash into Intelligence" in d.labels
    both = "play Case Officer with the first Petty Cash and the second Petty Cash and " \
        "Swiss Account into Intelligence"
    assert picked(d, both) == ("play_agent", 21, INT, (20, 22, 23))
    assert not any("F0" in label or "A03" in label for label in d.labels)


def test_a_partner_is_passed_a_card_by_name_at_four_players() -> None:
    hand = ((30, "M05"), (31, "F03"))
    game = M.Game(n=4, board=board(*(tableau() for _ in range(4))))
    d = deploy(game, hand, seat=1)
    assert d.labels == (
        "pass Intelligence Supremacy face down to your partner, seat 3",
        "pass Petty Cash face down to your partner, seat 3",
        "end your turn",
    )
    assert picked(d, "pass petty") == ("pass_card", 31)


def test_an_effect_names_its_target_by_owner_name_and_stack_and_where_it_goes() -> None:
    tableaux = (tableau(), tableau("INT: A01 A29 | OPS: A07"))
    game = M.Game(n=2, phase=M.EFFECT, special="A22", board=board(*tableaux))  # Honey Trap
    hand = ((40, "A04"), (41, "A16"))
    view = view_of(game, hand)
    d = decision("effect", M.effect_options(game, 0, hand), view)
    assert d.labels[0] == "decline the effect"
    assert "discard Resident, then take seat 1's Driver from Operations into your Operations " \
        "stack" in d.labels
    assert "discard Resident, then take seat 1's Freelancer from Intelligence into your " \
        "Signals stack" in d.labels
    assert picked(d, "decline") is None

    game = replace(game, special="A21", board=board(*tableaux, situation="S08"))  # Mole Hunter
    d = decision("effect", M.effect_options(game, 0, hand), view_of(game, hand))
    assert d.labels == (
        "decline the effect",
        "remove seat 1's Walk-in from Intelligence",
        "remove seat 1's Freelancer from Intelligence",
        "remove seat 1's Driver from Operations",
    )


def test_a_pile_is_taken_by_its_cards_and_the_last_one_put_back_draws() -> None:
    game = M.Game(n=2, phase=M.RECRUIT, deck=(1, 2), piles=((3,), (4, 5), (6,)), looking=2,
                  returned=(1,))
    piles: tuple[tuple[str | None, ...], ...] = (("A01",), ("A05", "F09"), ())
    d = decision("pile", (True, False), view_of(game, piles=piles))
    assert d.labels == ("take pile 2: Spymaster, Swiss Account", "put pile 2 back")
    last = replace(game, looking=3, returned=(1, 2))
    d = decision("pile", (True, False), view_of(last, piles=(*piles[:2], ("M32",))))
    assert d.labels == ("take pile 3: Grand Game", "put pile 3 back and draw from the deck")
    assert picked(d, "put") is False


def test_draft_cards_say_what_they_are() -> None:
    draft = ((50, "A34"), (51, "F06"), (52, "F07"), (53, "M30"))
    game = M.Game(n=2, draft=(50, 51, 52, 53))
    d = decision("draft_pick", (50, 51, 52, 53), view_of(game, draft=draft))
    assert d.labels == (
        "Ronin (mercenary, power 3, any branch)",
        "the first Slush Fund (funding, value 2)",
        "the second Slush Fund (funding, value 2)",
        "Satellite Link (Technology or Signals mission, 2 stars, with a condition)",
    )
    assert picked(d, "ronin") == 50


def test_paper_trail_discards_by_name() -> None:
    hand = tuple((60 + i, face) for i, face in enumerate(
        ("A01", "A02", "F01", "F02", "M01", "M02", "A33")))
    game = M.Game(n=2, phase=M.PAPER, situation="S07")
    d = decision("paper_trail", tuple(p for p, _ in hand), view_of(game, hand))
    assert d.labels[:4] == ("discard Walk-in", "discard Analyst",
                            "discard the first Petty Cash", "discard the second Petty Cash")
    assert picked(d, "contractor") == 66


def test_a_four_player_game_with_paper_trail_asks_every_decision_in_words() -> None:
    """A whole seeded game: every label unique, without a card id, and typed back to itself."""
    asked: list[Decision] = []

    entropy = SeededEntropy(11)
    local = new_local_table(GAME, {"situation": "S07"}, 4, entropy)
    agents = [Recording(BOTS["random"](entropy.child(f"bot/{i}"), i), asked) for i in range(4)]
    while local.step(agents) is not None:
        pass
    kinds = {d.kind for d in asked}
    assert {"draft_pick", "turn_action", "pile", "deploy", "effect", "paper_trail"} <= kinds
    assert any(label.startswith("pass ") for d in asked for label in d.labels)
    for d in asked:
        assert len(set(d.labels)) == len(d.labels), d.labels
        for i, label in enumerate(d.labels):
            assert choose(d, label) == i
            assert not re.search(r"\b[A-Z]\d\d\b|_|->", label), label
