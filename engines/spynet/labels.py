"""The options of a SpyNet decision in words, as a person reads and types them at a prompt.

Theory of operation
-------------------
A seat asks its agent for a §13 decision with every legal option (``GameSeat.ask``);
``describe_option`` gives each option the label a person sees and types. Labels use the words of
the screen (``screen.card_name``, ``screen.branch_name``, ``screen.seat_name``): cards by their
printed names, branches by their full names, never a card id or a record kind. They read the
seat's ``SeatView`` only (its hand, its draft cards, the piles it looked at, the public tableaux),
so a label never says more than the seat may know.

Labels are unique within a decision. The one card name that repeats is a funding card (four Petty
Cash, three Slush Fund, three Swiss Account): when the hand (or the draft) holds two of the same
name, they are told apart by their order in it, as the hand is listed on screen ("the first
Petty Cash", "the second Petty Cash"). Every other part of an option is named: the agent, its
branch, its funding, the target of an effect (its owner, its name, its stack) and where a taken
agent goes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from spycraft.engines.agent import Choice
from spycraft.engines.spynet import setup as SU
from spycraft.engines.spynet.cards import CARDS, Verb
from spycraft.engines.spynet.scoring import teammate
from spycraft.engines.spynet.screen import branch_name, card_line, card_name, seat_name
from spycraft.engines.spynet.view import SeatView

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def _ordinal(n: int) -> str:
    return ORDINALS[n - 1] if n <= len(ORDINALS) else f"number {n}"


def _prefixes(cards: Sequence[tuple[int, str]]) -> dict[int, str]:
    """Position -> "" or, when another card of the same name is listed, its order among them
    ("the second ")."""
    names = [card_name(face) for _, face in cards]
    count = Counter(names)
    seen: Counter[str] = Counter()
    prefixes = {}
    for (position, _), name in zip(cards, names):
        seen[name] += 1
        prefixes[position] = "" if count[name] == 1 else f"the {_ordinal(seen[name])} "
    return prefixes


def card_names(cards: Sequence[tuple[int, str]]) -> dict[int, str]:
    """Position -> the card's name, told apart from a card of the same name by its order
    ("the second Petty Cash")."""
    prefixes = _prefixes(cards)
    return {position: prefixes[position] + card_name(face) for position, face in cards}


def _pile_label(take: bool, view: SeatView) -> str:
    game = view.game
    assert game is not None and game.looking is not None
    k = game.looking
    if take:
        seen = view.piles[k - 1] if k - 1 < len(view.piles) else ()
        return f"take pile {k}: " + ", ".join(card_name(face) for face in seen)
    sizes = [len(pile) for pile in game.piles]
    if SU.next_pile(sizes, (*game.returned, k)) is None:
        return f"put pile {k} back and draw from the deck"
    return f"put pile {k} back"


def _effect_label(option: Choice, view: SeatView, hand: dict[int, str]) -> str:
    if option is None:
        return "decline the effect"
    use, discard = option
    game = view.game
    assert game is not None and game.special is not None
    t = use.target
    stack = game.board.tableaux[t.seat].stack(t.branch)
    victim = f"{seat_name(t.seat)}'s {card_name(stack[t.depth].card)}"
    effect = CARDS[game.special].effect
    if effect is not None and effect.verb is Verb.FLIP:
        destination = t.branch if use.destination is None else use.destination
        text = (
            f"take {victim} from {branch_name(t.branch)} into your "
            f"{branch_name(destination)} stack"
        )
    else:
        text = f"remove {victim} from {branch_name(t.branch)}"
    if discard is not None:
        text = f"discard {hand[discard]}, then {text}"
    return text


def describe_option(kind: str, option: Choice, view: SeatView) -> str:
    """The label of one option of a §13 decision ``kind``, for the seat of ``view``."""
    hand = card_names(view.hand)
    if kind == "draft_pick":
        return _prefixes(view.draft)[option] + card_line(view.face_of(option))
    if kind == "turn_action":
        return "recruit" if option else "deploy"
    if kind == "pile":
        return _pile_label(bool(option), view)
    if kind == "paper_trail":
        return f"discard {hand[option]}"
    if kind == "effect":
        return _effect_label(option, view, hand)
    what = option[0]
    if what == "play_agent":
        funding = " and ".join(hand[p] for p in option[3])
        text = f"play {hand[option[1]]}" + (f" with {funding}" if funding else "")
        return f"{text} into {branch_name(option[2])}"
    if what == "play_mission":
        return f"play the mission {hand[option[1]]} in {branch_name(option[2])}"
    if what == "pass_card":
        mate = teammate(view.seat, view.state.n)
        to = "your partner" if mate is None else f"your partner, {seat_name(mate)}"
        return f"pass {hand[option[1]]} face down to {to}"
    return "end your turn"
