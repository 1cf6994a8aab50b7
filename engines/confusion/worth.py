"""What a Confusion position is worth to a side, as the heuristic bots reckon it (``bots``,
``expert``): a win or a loss, who controls the briefcase and how far it is from the goal row,
the nearest spy of each side to it and the spies left; and the position after a "yes"."""

from __future__ import annotations

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
from spycraft.engines.confusion.model import Game
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
