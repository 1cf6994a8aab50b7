"""Stratego: Spies & Lies as pure functions over the public board (rules/spies-and-lies.md).

Theory of operation
-------------------
``Board`` is everything both seats can see (rules §2, "Public"). A deployment stays with its
owner until a card is revealed, so the board holds only each card's commitment, its Intel token
once the layouts are opened, and its rank once it is revealed.

Each function here takes a board and one event and returns the next board:

* beacon draws come in as the plain ``uniform()`` integers, in the order the rules list them
  (``draw_sizes`` gives the k of each, ``apply_draw`` takes the values);
* a choice (DT placement, guess, Captain copy, Marshal split) that the rules never allow raises
  ``Illegal``;
* a revealed rank that proves the hidden deployment or its forced Intel token illegal raises
  ``Violation``.

``rules.py`` wraps these in records, commitments and beacon seeds; the tests feed them the worked
examples' numbers directly.

Phases, in order: ``setup`` (one draw) -> ``deploy`` -> ``intel`` (one draw) -> ``layout`` ->
``tokens`` -> ``mission`` (steps 1..8; each step goes through the stages deceive?, guess, reveal,
then captain? and marshal? when an ability needs its owner's choice) -> ``exhaustion`` (one draw)
-> ``deploy`` of the next day. After day 3's step 8, a flag capture or a forfeit the phase is
``over``: the seats that have not forfeited open their remaining cards, then the result stands.

Every card is proven to be in the hand and to agree with its token when the tokens are opened
(``token_ranks`` are the ranks a card with that token may hold; ``rules`` checks the
proofs). What no proof covers is how the four cards relate (distinct, the rank order): a seat
may reveal a card only while some legal deployment of its hand still agrees with every card it
has revealed and every token it showed; the first reveal after which none does is the violation.
So a cheat is caught at the earliest reveal that proves it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, pairwise
from typing import Literal, TypeVar

from spycraft.engines.errors import Illegal, Violation
from spycraft.engines.evolve import evolve

T = TypeVar("T")
Pair = tuple[T, T]

RED, BLUE = 0, 1
SIDES = ("Red", "Blue")
RANKS = tuple(range(1, 11))
SERGEANT = 4
RANK_NAMES = {
    1: "Spy",
    2: "Scout",
    3: "Miner",
    4: "Sergeant",
    5: "Lieutenant",
    6: "Captain",
    7: "Bomb",
    8: "Colonel",
    9: "General",
    10: "Marshal",
}


@dataclass(frozen=True)
class IntelCard:
    id: int
    name: str
    shows: frozenset[int]


INTEL = {
    card.id: card
    for card in (
        IntelCard(1, "Low", frozenset({1, 2, 3, 4, 5})),
        IntelCard(2, "High", frozenset({6, 7, 8, 9, 10})),
        IntelCard(3, "Odd", frozenset({1, 3, 5, 7, 9})),
        IntelCard(4, "Even", frozenset({2, 4, 6, 8, 10})),
        IntelCard(5, "Prime", frozenset({2, 3, 5, 7})),
        IntelCard(6, "Non-prime", frozenset({1, 4, 6, 8, 9, 10})),
    )
}
DOUBLE_DAMAGE_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
ENEMY_WALL = 4
MARKER_LIMIT = 10
MAX_DT = 2
LAST_DAY = 3
STEPS = 8

Phase = Literal["setup", "deploy", "intel", "layout", "tokens", "mission", "exhaustion", "over"]
Stage = Literal["deceive", "guess", "reveal", "resolve", "captain", "marshal"]
CardState = Literal["hidden", "retired", "activated", "shown"]


@dataclass(frozen=True)
class Card:
    """One Mission card on the table. ``shown`` = opened at the final reveal, never resolved."""

    commitment: tuple[bytes, bytes]  # the rank's commitment: [point, tag] (crypto.membership)
    token: bool | None = None
    state: CardState = "hidden"
    rank: int | None = None
    deceived: bool = False
    guess: int | None = None


@dataclass(frozen=True)
class Flags:
    """The round flags of one player (rules §2)."""

    spy: bool = False
    scout: bool = False
    miner: bool = False
    bomb: bool = False
    double: bool = False


@dataclass(frozen=True)
class Board:
    phase: Phase = "setup"
    day: int = 1
    sp: int = RED
    da: int = 0
    markers: Pair[int] = (0, 0)
    dt: Pair[int] = (1, 1)
    supply: int = 2
    exhausted: Pair[tuple[int, ...]] = ((), ())
    old_intel: tuple[int, ...] = ()
    deck: tuple[int, ...] = tuple(INTEL)
    current: int | None = None
    cards: Pair[tuple[Card, ...]] = ((), ())
    layouts: Pair[bytes] = (b"", b"")  # the token-layout commitments of this round
    flags: Pair[Flags] = (Flags(), Flags())
    step: int = 0  # 1..8 in the mission phase
    stage: Stage = "guess"
    placed: bool = False  # a DT was placed on this step's target
    wall_lock: Pair[bool] = (False, False)
    captured_by: int | None = None


def other(seat: int) -> int:
    return 1 - seat


def direction(seat: int) -> int:
    return 1 if seat == RED else -1


def rank_label(rank: int) -> str:
    return f"{rank} {RANK_NAMES.get(rank, '?')}"


def _put(pair: Pair[T], seat: int, value: T) -> Pair[T]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _put_card(board: Board, seat: int, index: int, card: Card, **changes: object) -> Board:
    """The board with ``card`` at M(index+1) of ``seat`` (and any other ``changes``)."""
    cards = list(board.cards[seat])
    cards[index] = card
    return evolve(board, cards=_put(board.cards, seat, tuple(cards)), **changes)


# --- deployments (rules §4.1) ---------------------------------------------------------------


def hand(board: Board, seat: int) -> tuple[int, ...]:
    return tuple(r for r in RANKS if r not in board.exhausted[seat])


def in_rank_order(ranks: Sequence[int]) -> bool:
    others = [r for r in ranks if r != SERGEANT]
    return all(a < b for a, b in pairwise(others))


def is_legal_deployment(ranks: Sequence[int], in_hand: Sequence[int]) -> bool:
    return (
        len(ranks) == 4
        and len(set(ranks)) == 4
        and all(r in in_hand for r in ranks)
        and in_rank_order(ranks)
    )


@lru_cache(maxsize=64)
def legal_deployments(in_hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every legal deployment of this hand (distinct ranks), in lexicographic order (decision D1).

    Built rather than searched among the orderings: the ranks other than the Sergeant increase,
    so a deployment is four of them in order, or three of them with the Sergeant at one of four
    places.
    """
    others = sorted(r for r in in_hand if r != SERGEANT)
    found: list[tuple[int, ...]] = list(combinations(others, 4))
    if SERGEANT in in_hand:
        for three in combinations(others, 3):
            found += [three[:place] + (SERGEANT,) + three[place:] for place in range(4)]
    return tuple(sorted(found))


def forced_token(rank: int, intel: int) -> bool:
    return rank in INTEL[intel].shows


def token_ranks(board: Board, seat: int, token: bool) -> tuple[int, ...]:
    """The ranks of the hand a card carrying ``token`` may hold under the current Intel card:
    those the card shows (or, without a token, does not show), and the Sergeant (§4.2)."""
    assert board.current is not None
    return tuple(r for r in hand(board, seat)
                 if r == SERGEANT or forced_token(r, board.current) == token)


def contradicts(rank: int, token: bool | None, intel: int | None) -> bool:
    """True when a non-Sergeant ``rank`` carries a token its Intel card does not force."""
    if rank == SERGEANT or token is None or intel is None:
        return False
    return token != forced_token(rank, intel)


def consistent(
    in_hand: tuple[int, ...],
    known: Sequence[int | None],
    tokens: Sequence[bool | None],
    intel: int | None,
) -> tuple[tuple[int, ...], ...]:
    """The legal deployments that agree with the known ranks and the forced tokens."""

    def fits(deployment: tuple[int, ...]) -> bool:
        for rank, k, token in zip(deployment, known, tokens):
            if (k is not None and k != rank) or contradicts(rank, token, intel):
                return False
        return True

    return tuple(d for d in legal_deployments(in_hand) if fits(d))


def any_consistent(
    in_hand: tuple[int, ...],
    known: Sequence[int | None],
    tokens: Sequence[bool | None],
    intel: int | None,
) -> bool:
    """Whether ``consistent`` is not empty, found by a search rather than a list: mission by
    mission, a rank of the hand not used yet that agrees with what is known there, above the
    last rank other than 4. A reveal asks this: with a known start the search is a few steps,
    where filtering all legal deployments of the hand (up to 294) costs more than the rest of
    the record."""
    agreeing = [list(in_hand) for _ in range(4)]
    for mission, (k, token) in enumerate(zip(known[:4], tokens)):
        # a known rank is the only candidate there (none if it is not in the hand)
        candidates = in_hand if k is None else (k,) if k in in_hand else ()
        agreeing[mission] = [r for r in candidates if not contradicts(r, token, intel)]

    def completes(mission: int, floor: int | None, used: tuple[int, ...]) -> bool:
        if mission == 4:
            return True
        return any(
            completes(mission + 1, floor if r == SERGEANT else r, (*used, r))
            for r in agreeing[mission]
            if r not in used and (r == SERGEANT or floor is None or r > floor)
        )

    return completes(0, None, ())


def reveal_problem(board: Board, seat: int, index: int, rank: int) -> str | None:
    """Why ``rank`` cannot be the card under M(index+1) of ``seat``, or None if it can."""
    mission = f"M{index + 1}"
    in_hand = hand(board, seat)
    cards = board.cards[seat]
    earlier = [c.rank for c in cards[:index] if c.rank is not None]
    if rank not in in_hand:
        return f"{mission} holds {rank}, which is not in the hand (exhausted or no such rank)"
    if rank in earlier:
        return f"{mission} holds {rank}, which is already deployed on an earlier mission"
    if rank != SERGEANT and any(e != SERGEANT and e > rank for e in earlier):
        return f"{mission} holds {rank}: the ranks other than 4 are not increasing"
    if board.current is not None and contradicts(rank, cards[index].token, board.current):
        shown = "shows" if forced_token(rank, board.current) else "does not show"
        return (
            f"{mission} holds {rank}, which the Intel card {INTEL[board.current].name} "
            f"{shown}, but its token says otherwise (only the Sergeant may lie)"
        )
    known = [*earlier, rank] + [None] * (3 - index)
    tokens = [c.token for c in cards]
    if not any_consistent(in_hand, known, tokens, board.current):
        return (
            f"no legal deployment with these tokens starts {'-'.join(map(str, known[: index + 1]))}"
        )
    return None


# --- setup, Intel, tokens (rules §3, §4.2) --------------------------------------------------


def draw_sizes(board: Board) -> tuple[int, ...]:
    """The k of each uniform(k) the current draw needs, in the rules' order."""
    if board.phase == "setup":
        return (len(INTEL), len(RANKS), len(RANKS), 2)
    if board.phase == "intel":
        return (len(board.deck),)
    if board.phase == "exhaustion":
        return tuple(len(DOUBLE_DAMAGE_PAIRS) if f.double else 4 for f in board.flags)
    raise ValueError(f"no draw in phase {board.phase}")


def apply_draw(board: Board, values: Sequence[int]) -> Board:
    if board.phase == "setup":
        old, red, blue, sp = values
        return setup(board, old, red, blue, sp)
    if board.phase == "intel":
        return draw_intel(board, values[0])
    return exhaust(board, values[0], values[1])


def setup(board: Board, old: int, red: int, blue: int, sp: int) -> Board:
    deck = list(INTEL)
    set_aside = deck.pop(old)
    return evolve(
        board,
        phase="deploy",
        old_intel=(set_aside,),
        deck=tuple(deck),
        exhausted=((RANKS[red],), (RANKS[blue],)),
        sp=(RED, BLUE)[sp],
    )


def deploy(board: Board, seat: int, commitments: Sequence[tuple[bytes, bytes]]) -> Board:
    board = evolve(board, cards=_put(board.cards, seat, tuple(Card(c) for c in commitments)))
    return evolve(board, phase="intel") if all(board.cards) else board


def draw_intel(board: Board, u: int) -> Board:
    current = sorted(board.deck)[u]
    deck = tuple(i for i in board.deck if i != current)
    return evolve(board, phase="layout", current=current, deck=deck)


def commit_layout(board: Board, seat: int, digest: bytes) -> Board:
    board = evolve(board, layouts=_put(board.layouts, seat, digest))
    return evolve(board, phase="tokens") if all(board.layouts) else board


def open_layout(board: Board, seat: int, tokens: Sequence[bool]) -> Board:
    cards = tuple(evolve(c, token=t) for c, t in zip(board.cards[seat], tokens))
    board = evolve(board, cards=_put(board.cards, seat, cards))
    if all(c.token is not None for side in board.cards for c in side):
        return _begin_step(evolve(board, phase="mission"), 1)
    return board


# --- the mission phase (rules §4.3) ---------------------------------------------------------


def guesser(board: Board) -> int:
    return board.sp if board.step % 2 == 1 else other(board.sp)


def defender(board: Board) -> int:
    return other(guesser(board))


def target_index(board: Board) -> int:
    return (board.step - 1) // 2


def target(board: Board) -> Card:
    return board.cards[defender(board)][target_index(board)]


def _begin_step(board: Board, step: int) -> Board:
    board = evolve(board, step=step, placed=False, wall_lock=(False, False))
    return evolve(board, stage="deceive" if board.dt[defender(board)] >= 1 else "guess")


def deceive(board: Board, place: bool) -> Board:
    """D3: the defender places a DT on the target, or does not."""
    d = defender(board)
    if board.stage != "deceive":
        raise Illegal("no deception decision now")
    if place:
        if board.dt[d] < 1 or board.placed:
            raise Illegal("a DT you do not have, or a second DT in one step")
        board = evolve(board, dt=_put(board.dt, d, board.dt[d] - 1), placed=True)
        board = _put_card(board, d, target_index(board), evolve(target(board), deceived=True))
    return evolve(board, stage="guess")


def guess(board: Board, rank: int) -> Board:
    """D4: the guesser names a rank in 1..10."""
    if board.stage != "guess":
        raise Illegal("no guess now")
    if rank not in RANKS:
        raise Illegal(f"a guess names a rank in 1..10, not {rank}")
    card = evolve(target(board), guess=rank)
    return _put_card(board, defender(board), target_index(board), card, stage="reveal")


def reveal(board: Board, rank: int) -> Board:
    """Step 4 and 5: the target shows ``rank``; resolve until done or a choice is needed."""
    d, g, index = defender(board), guesser(board), target_index(board)
    problem = reveal_problem(board, d, index, rank)
    if problem is not None:
        raise Violation(problem)
    card = target(board)
    correct = card.guess == rank
    auto = False
    flags_g = board.flags[g]
    if flags_g.bomb:
        flags_g = evolve(flags_g, bomb=False)
        auto = True
        if correct:
            board = evolve(board, flags=_put(board.flags, d, evolve(board.flags[d], double=True)))
        board = evolve(board, flags=_put(board.flags, g, flags_g))
    if (rank == 10 and flags_g.spy) or (rank == 7 and flags_g.miner):
        auto = True
    if correct or auto:
        retired = evolve(card, rank=rank, state="retired")
        board = _put_card(board, d, index, retired, stage="resolve")
        if correct:
            board = gain(board, g, 4 if flags_g.scout else 2)
        return _finish_step(board)
    activated = evolve(card, rank=rank, state="activated")
    board = _put_card(board, d, index, activated, stage="resolve")
    board = activate(board, d, rank)
    return board if board.stage in ("captain", "marshal") else _finish_step(board)


def captain_options(board: Board, seat: int) -> tuple[int, ...]:
    """D5: 0 for "6 IP", then each exhausted soldier that may be copied, ascending."""
    o = board.flags[other(seat)]
    copies = tuple(
        e
        for e in sorted(board.exhausted[seat])
        if not (e == 10 and o.spy) and not (e == 7 and o.miner)
    )
    return (0, *copies)


def activate(board: Board, seat: int, rank: int) -> Board:
    """The ability of ``rank`` for its owner ``seat`` (rules §6.3)."""
    flags = board.flags[seat]
    if rank == 1:
        board = gain(board, seat, 1)
        if board.captured_by is not None:
            return board
        if board.dt[seat] < MAX_DT and board.supply >= 1:
            board = evolve(
                board, dt=_put(board.dt, seat, board.dt[seat] + 1), supply=board.supply - 1
            )
        return evolve(board, flags=_put(board.flags, seat, evolve(flags, spy=True)))
    if rank == 2:
        board = gain(board, seat, 2)
        return evolve(board, flags=_put(board.flags, seat, evolve(flags, scout=True)))
    if rank == 3:
        board = gain(board, seat, 3)
        return evolve(board, flags=_put(board.flags, seat, evolve(flags, miner=True)))
    if rank == 4:
        return gain(board, seat, 4)
    if rank == 5:
        return move_da(board, seat, 1)
    if rank == 6:
        if len(captain_options(board, seat)) == 1:
            return gain(board, seat, 6)
        return evolve(board, stage="captain")
    if rank == 7:
        return evolve(board, flags=_put(board.flags, seat, evolve(flags, bomb=True)))
    if rank == 8:
        return gain(board, seat, 8, rollover=True)
    if rank == 9:
        return move_da(board, seat, 2)
    return evolve(board, stage="marshal")


def captain(board: Board, copy: int) -> Board:
    """D5: 0 takes 6 IP; e copies the exhausted soldier e."""
    seat = defender(board)
    if board.stage != "captain" or copy not in captain_options(board, seat):
        raise Illegal(f"the Captain cannot copy {copy} now")
    board = evolve(board, stage="resolve")
    board = gain(board, seat, 6) if copy == 0 else activate(board, seat, copy)
    return board if board.stage == "marshal" else _finish_step(board)


def marshal(board: Board, split: bool) -> Board:
    """D6: "10 IP", or (split) the opponent loses 5 IP and the owner gains 5."""
    if board.stage != "marshal":
        raise Illegal("no Marshal choice now")
    seat = defender(board)
    board = evolve(board, stage="resolve")
    if split:
        o = other(seat)
        board = evolve(board, markers=_put(board.markers, o, max(0, board.markers[o] - 5)))
        board = gain(board, seat, 5)
    else:
        board = gain(board, seat, 10)
    return _finish_step(board)


def _finish_step(board: Board) -> Board:
    if board.captured_by is not None:
        return board
    card = target(board)
    if board.placed and card.guess != card.rank:
        board = gain(board, defender(board), 4)
        if board.captured_by is not None:
            return board
    if board.step < STEPS:
        return _begin_step(board, board.step + 1)
    return evolve(board, phase="exhaustion" if board.day < LAST_DAY else "over")


# --- infiltration and the Double Agent (rules §6.1, §6.2) -----------------------------------


def gain(board: Board, seat: int, k: int, rollover: bool = False) -> Board:
    if board.captured_by is not None:
        return board
    m = board.markers[seat] + k
    if m < MARKER_LIMIT:
        return evolve(board, markers=_put(board.markers, seat, m))
    left = m - MARKER_LIMIT if rollover else 0
    board = evolve(board, markers=_put(board.markers, seat, left))
    return move_da(board, seat, board.day)


def move_da(board: Board, seat: int, spaces: int) -> Board:
    if board.captured_by is not None or board.wall_lock[seat]:
        return board
    wall = ENEMY_WALL * direction(seat)
    if board.da == wall:
        return evolve(board, captured_by=seat, phase="over")
    da = board.da
    for _ in range(spaces):
        da += direction(seat)
        if da == wall:
            return evolve(board, da=da, wall_lock=_put(board.wall_lock, seat, True))
    return evolve(board, da=da)


# --- end of round (rules §5) ----------------------------------------------------------------


def exhaust(board: Board, u_red: int, u_blue: int) -> Board:
    exhausted: list[tuple[int, ...]] = []
    for seat, u in ((RED, u_red), (BLUE, u_blue)):
        ranks = [c.rank for c in board.cards[seat] if c.rank is not None]
        if board.flags[seat].double:
            exhausted.append(tuple(sorted(ranks[i] for i in DOUBLE_DAMAGE_PAIRS[u])))
        else:
            exhausted.append((ranks[u],))
    current = () if board.current is None else (board.current,)
    return evolve(
        board,
        phase="deploy",
        day=board.day + 1,
        sp=other(board.sp),
        exhausted=(exhausted[0], exhausted[1]),
        old_intel=board.old_intel + current,
        current=None,
        cards=((), ()),
        layouts=(b"", b""),
        flags=(Flags(), Flags()),
        step=0,
        stage="guess",
        placed=False,
        wall_lock=(False, False),
    )


# --- end of play: forfeits and the final reveal (rules §7, §10) -----------------------------


def stop(board: Board) -> Board:
    """Play stops at once (a seat forfeited: the table keeps who and why)."""
    return evolve(board, phase="over")


def hidden_indices(board: Board, seat: int) -> tuple[int, ...]:
    return tuple(i for i, c in enumerate(board.cards[seat]) if c.rank is None)


def final_opener(board: Board, forfeits: Sequence[int] = ()) -> int | None:
    """The next seat that must open its remaining cards before the result, if any (a seat that
    forfeited opens nothing more)."""
    if board.phase != "over":
        return None
    for seat in (RED, BLUE):
        if seat not in forfeits and hidden_indices(board, seat):
            return seat
    return None


def final_open(board: Board, seat: int, ranks: Sequence[int]) -> Board:
    """The final reveal: ``ranks`` for this seat's hidden cards, in mission order."""
    for index, rank in zip(hidden_indices(board, seat), ranks):
        problem = reveal_problem(board, seat, index, rank)
        if problem is not None:
            raise Violation(problem)
        card = board.cards[seat][index]
        board = _put_card(board, seat, index, evolve(card, rank=rank, state="shown"))
    return board
