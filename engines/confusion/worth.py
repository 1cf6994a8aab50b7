"""What a Confusion position is worth to a side, as the heuristic bots reckon it (``bots``,
``expert``): a win or a loss, who controls the briefcase and how far it is from the goal row,
the nearest spy of each side to it and the spies left; and the position after a "yes"."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spycraft.engines.confusion.board import (
    SIDE_PREFIXES,
    SIZE,
    Line,
    Side,
    Square,
    goal_rank,
    opp,
    side_of,
)
from spycraft.engines.confusion.model import Game, use_token
from spycraft.engines.confusion.movement import Announcement, movement_type

WIN = 10_000.0


def value(g: Game, side: Side) -> float:
    """How good ``g`` is for ``side`` (higher is better)."""
    if g.outcome is not None:
        return 0.0 if g.outcome.winner is None else WIN if g.outcome.winner == side else -WIN
    return position_value(dict(g.board.spies), g.board.briefcase, side)


def position_value(spies: dict[str, Square], bc: Square, side: Side) -> float:
    """The value of a position for ``side``: a win or a loss, who controls the briefcase and how
    far it is from the goal row, the nearest spy of each side to it, and the spies left."""
    # one pass over the spies (the bots weigh thousands of positions a game)
    bx, by = bc
    holder = None
    mine = theirs = 0
    near_mine = near_theirs = SIZE  # farther than any spy can be
    prefix = SIDE_PREFIXES[side]
    for spy, (x, y) in spies.items():
        distance = max(abs(x - bx), abs(y - by))
        if distance == 0:
            holder = spy
        if spy[0] == prefix:
            mine += 1
            near_mine = min(near_mine, distance)
        else:
            theirs += 1
            near_theirs = min(near_theirs, distance)
    if holder is not None and bc.rank == goal_rank(side_of(holder)):
        return WIN if side_of(holder) == side else -WIN
    if not mine or not theirs:
        return -WIN if not mine else WIN
    score = 6.0 * (mine - theirs)
    if holder is not None and side_of(holder) == side:
        score += 30.0 - 6.0 * abs(goal_rank(side) - bc.rank)
    elif holder is not None:
        score -= 30.0 - 6.0 * abs(goal_rank(opp(side)) - bc.rank)
    else:
        score -= 1.0 * abs(goal_rank(side) - bc.rank)
    score -= 2.0 * near_mine
    score += 1.0 * near_theirs
    return score


def after_yes(spies: dict[str, Square], bc: Square, side: Side, a: Announcement
              ) -> tuple[dict[str, Square], Square]:
    """The spies and the briefcase after ``a`` is answered yes (§6.4, promotion left out)."""
    after = dict(spies)
    if a.mode == "throw":
        return after, a.to
    occupant = next((s for s, w in spies.items() if w == a.to), None)
    if occupant is not None and side_of(occupant) != side:
        del after[occupant]
    after[a.spy] = a.to
    return after, a.to if a.mode == "carry" else bc


def yes_share(candidates: tuple[str, ...], move: Line) -> float:
    """The chance of a "yes" if every candidate is as likely (the DA says yes half the time)."""
    if not candidates:
        return 0.5
    yes = sum(0.5 if t == "DA" else float(movement_type(t).allows(move)) for t in candidates)
    return yes / len(candidates)


def token_scores(g: Game, options: Sequence[tuple[str, tuple[str, ...]]], side: Side,
                 candidates: Callable[[str], int]) -> list[float]:
    """What each token choice is worth to ``side`` (both bot levels): keeping it (1), a reveal
    of a spy near the briefcase whose type is still open (``candidates``: how many types it may
    still be; 1.5), a double move late in the game (2), a swap that wins at once (5)."""
    bc = g.board.briefcase
    scores = []
    for token, spies in options:
        score = 0.0
        if token == "none":
            score = 1.0
        elif token == "reveal":
            where = g.board.position(spies[0])
            near = where is not None and max(abs(where.x - bc.x), abs(where.y - bc.y)) <= 2
            score = 1.5 if near and candidates(spies[0]) > 3 else 0.0
        elif token == "double":
            score = 2.0 if g.turn_no > 10 else 0.0
        elif token == "swap":
            swapped = use_token(g, "swap", spies)
            won = swapped.outcome is not None and swapped.outcome.winner == side
            score = 5.0 if won else 0.0
        scores.append(score)
    return scores

