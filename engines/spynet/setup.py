"""SpyNet's setup, draft and recruit arithmetic (rules/spynet.md §4, §6, §9.1, situations option).

Theory of operation
-------------------
These are the parts of setup and recruiting that involve no secret and no choice beyond the
ones passed in, written over any card identities ``T``: the engine passes deck positions (the
mental-poker deck's ciphertext indices), the tests pass card ids or plain integers. A deck is a
tuple whose first item is its top card; piles are three tuples (pile 1, 2, 3) in arrival order.

* Options: ``parse_situation`` reads the ``situation`` option (``off``, ``random``, ``S01`` …
  ``S08``); ``setup_draws`` lists the beacon draws setup needs, in the rules' order (the first
  player, then the situation under ``random``); ``situation_in_play`` turns them into a card.
* ``deal`` lays out §4.3 and §4.7 from a shuffled deck: the three piles, then the ``n`` cards
  drawn by the first drafter. ``draft`` says who receives how many cards and to whom the rest
  go; ``run_draft`` plays the picks out.
* ``next_pile`` is the pile a recruit sees next as it returns piles one by one;
  ``recruit`` is §6 in one call, given which pile is taken (``None``: every non-empty pile was
  returned and the recruit draws): the piles looked at, the cards gained, the refills in order
  and whether the deck's last card left (the end trigger, after which refills still due are
  skipped). ``final_round`` lists the final turns that trigger sets up (§9.1).

Everything here is a pure function; a choice the rules forbid raises ``Illegal``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from spycraft.engines.errors import Illegal
from spycraft.engines.spynet.cards import DECK, HIRING_SPREE, SITUATIONS
from spycraft.engines.spynet.errors import UnknownSituation
from spycraft.engines.spynet.scoring import PLAYER_COUNTS

T = TypeVar("T")

PILE_COUNT = 3
PILE_NUMBERS = (1, 2, 3)
DECK_SIZE = len(DECK)

OFF = "off"
RANDOM = "random"
SITUATION_OPTIONS: tuple[str, ...] = (OFF, RANDOM, *SITUATIONS)
"""Every value of the ``situation`` option, canonical spelling; ``off`` is the default."""


# --- the situation option (§1, §4.6) ---------------------------------------------------------


def parse_situation(text: object) -> str:
    """The canonical option for what a player typed: ``off``, ``random`` or ``S01`` … ``S08``.

    Case does not matter (``s03``, ``Random``); anything else raises ``UnknownSituation``.
    A genesis must carry the canonical spelling (``check_situation``).
    """
    if isinstance(text, str):
        for option in SITUATION_OPTIONS:
            if text.strip().casefold() == option.casefold():
                return option
    raise UnknownSituation(text)


def check_situation(option: object) -> str:
    """A genesis option exactly as written, or ``UnknownSituation``."""
    if not isinstance(option, str) or option not in SITUATION_OPTIONS:
        raise UnknownSituation(option)
    return option


def setup_draws(players: int, option: str) -> tuple[int, ...]:
    """The ``k`` of each ``uniform(k)`` setup draws, in order: the first player, the situation."""
    check_players(players)
    return (players, len(SITUATIONS)) if check_situation(option) == RANDOM else (players,)


def situation_in_play(option: str, draw: int | None = None) -> str | None:
    """The situation card in play (``None`` for off); ``draw`` is ``uniform(8)`` under random."""
    match check_situation(option):
        case "off":
            return None
        case "random":
            if draw is None or not 0 <= draw < len(SITUATIONS):
                raise Illegal(f"the random situation needs a draw in [0, 8), not {draw!r}")
            return SITUATIONS[draw]
        case fixed:
            return fixed


def check_players(players: int) -> None:
    if players not in PLAYER_COUNTS:
        raise Illegal(f"SpyNet is played by 2, 3 or 4 players, not {players}")


# --- seats, the deal and the draft (§4) ------------------------------------------------------


def next_seat(seat: int, players: int) -> int:
    """The seat to the left, who plays next."""
    return (seat + 1) % players


def turn_order(first: int, players: int) -> tuple[int, ...]:
    """One round of turns starting with the first player."""
    return tuple((first + i) % players for i in range(players))


def deck_after_setup(players: int) -> int:
    """Cards left in the deck once the piles and the draft are dealt: ``73 − n``."""
    check_players(players)
    return DECK_SIZE - PILE_COUNT - players


@dataclass(frozen=True)
class Deal(Generic[T]):
    """The layout after §4.3 and §4.7's draw: three one-card piles, the drafted cards, the deck."""

    piles: tuple[tuple[T, ...], ...]
    drafted: tuple[T, ...]
    deck: tuple[T, ...]


def deal(deck: Sequence[T], players: int) -> Deal[T]:
    """Deal the top card to pile 1, the next to pile 2 and 3, then the ``n`` draft cards."""
    check_players(players)
    if len(deck) != DECK_SIZE:
        raise Illegal(f"the deck holds {DECK_SIZE} cards, not {len(deck)}")
    piles = tuple((deck[i],) for i in range(PILE_COUNT))
    drafted = tuple(deck[PILE_COUNT : PILE_COUNT + players])
    return Deal(piles, drafted, tuple(deck[PILE_COUNT + players :]))


@dataclass(frozen=True)
class DraftStep:
    """One drafter: it ``receives`` cards, keeps one and passes the rest to ``passes_to``.

    The first step's cards come from the deck; the last seat (the first player) receives one
    card and has no choice (``passes_to`` is ``None``).
    """

    seat: int
    receives: int
    passes_to: int | None

    @property
    def chooses(self) -> bool:
        return self.receives > 1


def draft(players: int, first: int) -> tuple[DraftStep, ...]:
    """§4.7: from the seat right of the first player, each passing to its own right."""
    check_players(players)
    if not 0 <= first < players:
        raise Illegal(f"the first player is a seat in 0..{players - 1}, not {first}")
    seats = tuple((first - 1 - i) % players for i in range(players))
    return tuple(
        DraftStep(seat, players - i, seats[i + 1] if i + 1 < players else None)
        for i, seat in enumerate(seats)
    )


def run_draft(
    players: int, first: int, drafted: Sequence[T], picks: Sequence[int]
) -> tuple[T, ...]:
    """Each seat's kept card, by seat, given each choosing drafter's pick.

    ``picks[i]`` is the index, in the cards the ``i``-th drafter received (in the order they
    were passed on), of the card it keeps. The first player takes the last card: no pick.
    """
    steps = draft(players, first)
    choosers = [step for step in steps if step.chooses]
    if len(drafted) != players:
        raise Illegal(f"the draft deals {players} cards, not {len(drafted)}")
    if len(picks) != len(choosers):
        raise Illegal(f"the draft has {len(choosers)} picks, not {len(picks)}")
    kept: dict[int, T] = {}
    cards = tuple(drafted)
    for step, pick in zip(steps, (*picks, 0), strict=True):
        if not 0 <= pick < len(cards):
            raise Illegal(f"seat {step.seat} holds {len(cards)} draft cards, not a card {pick}")
        kept[step.seat] = cards[pick]
        cards = cards[:pick] + cards[pick + 1 :]
    return tuple(kept[seat] for seat in range(players))


# --- recruit (§6) and the end trigger (§9.1) -------------------------------------------------


@dataclass(frozen=True)
class Recruit(Generic[T]):
    """What one recruit does.

    * ``looked``: the piles the recruit saw, ascending (empty piles are skipped, §6);
    * ``taken``: the pile it took, or ``None`` when it returned every pile it saw and drew;
    * ``gained``: the cards that went to its hand (the whole pile, or the drawn card(s));
    * ``refilled``: the piles that got the deck's next card, in refill order;
    * ``piles`` and ``deck``: the layout afterwards;
    * ``deck_emptied``: the deck's last card left during this recruit (the end trigger).
    """

    looked: tuple[int, ...]
    taken: int | None
    gained: tuple[T, ...]
    refilled: tuple[int, ...]
    piles: tuple[tuple[T, ...], ...]
    deck: tuple[T, ...]
    deck_emptied: bool


def piles_seen(pile_sizes: Sequence[int], taken: int | None) -> tuple[int, ...]:
    """The non-empty piles, ascending, up to and including the taken one (all when drawing)."""
    last = PILE_COUNT if taken is None else taken
    return tuple(k for k in PILE_NUMBERS if k <= last and pile_sizes[k - 1] > 0)


def next_pile(pile_sizes: Sequence[int], returned: Sequence[int]) -> int | None:
    """The pile a recruit looks at next, having returned ``returned`` (ascending) so far.

    ``None`` once no non-empty pile is left to see: the recruit then draws from the deck.
    """
    after = max(returned, default=0)
    return next((k for k in PILE_NUMBERS if k > after and pile_sizes[k - 1] > 0), None)


def recruit(
    piles: Sequence[Sequence[T]],
    deck: Sequence[T],
    taken: int | None,
    situation: str | None = None,
) -> Recruit[T]:
    """§6: look at the piles in order, take ``taken`` (or draw), then refill the piles looked at.

    Raises ``Illegal`` for a pile that does not exist or is empty, and for a recruit from an
    empty deck (the final round allows no recruit, §5).
    """
    if len(piles) != PILE_COUNT:
        raise Illegal(f"SpyNet has {PILE_COUNT} piles, not {len(piles)}")
    if not deck:
        raise Illegal("no recruit once the deck is empty: the final round has begun")
    if taken is not None and (taken not in PILE_NUMBERS or not piles[taken - 1]):
        raise Illegal(f"pile {taken!r} cannot be taken: it is not a non-empty pile 1, 2 or 3")
    new_piles = [tuple(pile) for pile in piles]
    rest = tuple(deck)
    looked = piles_seen([len(pile) for pile in piles], taken)
    if taken is not None:
        gained = new_piles[taken - 1]
        new_piles[taken - 1] = ()
    else:
        draws = 2 if situation == HIRING_SPREE else 1
        gained, rest = rest[:draws], rest[draws:]
    refilled: list[int] = []
    for k in looked:
        if not rest:
            break
        new_piles[k - 1] = new_piles[k - 1] + rest[:1]
        rest = rest[1:]
        refilled.append(k)
    return Recruit(looked, taken, gained, tuple(refilled), tuple(new_piles), rest, not rest)


def final_round(emptied_by: int, players: int) -> tuple[int, ...]:
    """§9.1: after seat ``e`` finishes its turn, seats ``e+1 … e+n`` take one final Deploy each."""
    return tuple((emptied_by + i) % players for i in range(1, players + 1))
