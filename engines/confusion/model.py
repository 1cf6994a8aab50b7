"""Confusion's public state and its rules as pure functions (rules/confusion.md §4-§10).

Theory of operation
-------------------
``Game`` holds only public facts: the commitments each side made to the types of the other
side's spies, the permutation the beacon drew (§4), the board (``movement.Situation``), the turn
and its step, the counters of §9.4, the tokens of §10, the public observations the notebook reads
(§11) and, at the end, the types each seat opened. It never holds a type that the rules keep
hidden: whatever a proof establishes (an answer, a statement, a shown type) arrives here as a
plain public fact, after ``rules`` checked the proof.

A turn is a short sequence of steps, each waiting for one record of one seat (``expected``):

``token``      the player: a token or none (only with the ``tokens`` option and an unused token)
``show``       the opponent: the type of the spy a ``reveal`` token named
``free``       the player: none, eliminate_own, eliminate_opp_da or resign (§8, §5)
``announce``   the player: one announcement (§6.1-6.2); two after ``double``, none after ``swap``
``answer``     the opponent: yes or no, with the promotion statement when one is due (§6.3-6.5)
``statement``  the opponent: a promotion statement for a swapped spy (§10)

Each function below takes the state and one decision already checked for shape, applies the
rulebook and returns the new state, or raises ``Illegal`` (a choice the rules never allow) or
``Violation`` (public facts that no assignment of the types can explain). The game ends with
``outcome`` set (§9); then each seat that has not forfeited opens its 13 commitments
(``final_open``).

Contradictions are refused where they appear (defence in depth: the proofs ``rules`` checks
already make them impossible). ``candidates`` keeps, for every spy, the types that meet every
public observation about it (§11's ``L(s)``, as a bit mask over ``TYPE_IDS``); a record whose
observations leave some spy without a type, or leave no bijection of a side's 13 spies onto the
13 types within those sets (a second spy shown to be the Double Agent, a type shown twice,
answers no single type could give), is a ``Violation`` at that record. The check is a perfect
matching by augmenting paths on 13 x 13, the same search as the notebook's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from spycraft.engines.confusion.board import (
    LETTERS,
    SIDE_NAMES,
    SPIES,
    WHITE,
    Line,
    Side,
    goal_rank,
    letter_of,
    opp,
    side_of,
)
from spycraft.engines.confusion.movement import (
    ASSIGNMENT_DRAWS,
    CROWNS,
    TYPE_IDS,
    Announcement,
    Situation,
    assignment,
    check_announcement,
    movement_type,
    statement_due,
)
from spycraft.engines.errors import Illegal, Violation

TOKENS: tuple[str, ...] = ("reveal", "double", "swap")
FREE_ACTIONS: tuple[str, ...] = ("none", "eliminate_own", "eliminate_opp_da", "resign")
FIRST_CHOICES: tuple[str, ...] = ("random", "white", "red")
DRAW_LIMIT = 200
START = Situation.start()

Committed = tuple[bytes, bytes]
"""One commitment to a type as the record carries it: the encodings of its point and tag."""
Step = Literal["token", "show", "free", "announce", "answer", "statement"]
Phase = Literal["assign", "draw", "play", "final", "over"]


@dataclass(frozen=True)
class Observation:
    """One public fact about a spy's type (§11): ``kind`` is yes, no, promoted, not promoted or
    shown; ``line`` for yes/no, ``shown`` for shown; ``seq`` is the record that stated it."""

    seq: int
    spy: str
    kind: str
    line: Line | None = None
    shown: str | None = None

    def allows(self, type_id: str) -> bool:
        """Whether ``type_id`` meets this observation's constraint (§11's table)."""
        if self.kind == "shown":
            return type_id == self.shown
        if self.kind == "promoted":
            return type_id in CROWNS
        if self.kind == "not promoted":
            return type_id not in CROWNS
        if type_id == "DA":
            return True
        assert self.line is not None
        return movement_type(type_id).allows(self.line) == (self.kind == "yes")


ALL_TYPES = (1 << len(TYPE_IDS)) - 1
"""The candidate mask of a spy nothing is known about: every one of the 13 types."""
NO_OBSERVATIONS: tuple[tuple[int, ...], ...] = ((ALL_TYPES,) * len(LETTERS),) * 2


def type_mask(types: Iterable[str]) -> int:
    """The bit mask of a set of type ids (bit i for ``TYPE_IDS[i]``)."""
    return sum(1 << TYPE_IDS.index(t) for t in set(types))


def _allowed(o: Observation) -> int:
    """The mask of the types that meet one observation."""
    return _mask_of(o.kind, o.line, o.shown)


@lru_cache(maxsize=256)
def _mask_of(kind: str, line: Line | None, shown: str | None) -> int:
    return type_mask(t for t in TYPE_IDS if Observation(0, "", kind, line, shown).allows(t))


def perfect_matching(masks: tuple[int, ...]) -> bool:
    """Whether every spy (``masks[i]``: the types it may have) can be given a type of its mask,
    each type to one spy (augmenting paths, Kuhn's algorithm)."""
    owner: dict[int, int] = {}

    def augment(spy: int, seen: set[int]) -> bool:
        for t in range(len(TYPE_IDS)):
            if masks[spy] >> t & 1 and t not in seen:
                seen.add(t)
                if t not in owner or augment(owner[t], seen):
                    owner[t] = spy
                    return True
        return False

    return all(augment(spy, set()) for spy in range(len(masks)))


@dataclass(frozen=True)
class Outcome:
    winner: Side | None
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class Game:
    table: bytes
    tokens_variant: bool
    first: str
    phase: Phase = "assign"
    # commitments[P]: the 13 commitments ([point, tag], record order) opp(P) made to P's spies
    commitments: tuple[tuple[Committed, ...], ...] = ((), ())
    # assigned[P][i]: the index in commitments[P] of the spy with letter LETTERS[i] (§4)
    assigned: tuple[tuple[int, ...], ...] = ((), ())
    board: Situation = START
    turn: Side = WHITE
    turn_no: int = 1
    quiet: int = 0
    visited: tuple[int, ...] = (6,)
    tokens: tuple[tuple[str, ...], ...] = ((), ())
    step: Step = "free"
    pending: Announcement | None = None
    asked: Line | None = None  # the line the pending answer is about
    moves_left: int = 1
    moved: tuple[str, ...] = ()  # spies announced this turn (a double's second must differ)
    swapped: bool = False
    statements: tuple[str, ...] = ()  # spies whose promotion statement is due after a swap
    reveal: str | None = None  # the spy a reveal token named, until its type is shown
    progress: bool = False
    removed: tuple[str, ...] = ()
    log: tuple[Observation, ...] = ()
    # candidates[P][i]: the types (mask) that meet every observation of P's spy LETTERS[i]
    candidates: tuple[tuple[int, ...], ...] = NO_OBSERVATIONS
    outcome: Outcome | None = None
    openings: tuple[tuple[str, ...] | None, ...] = (None, None)  # [committer] types, record order

    # --- reading ------------------------------------------------------------------------------

    def commitment_of(self, spy: str) -> Committed:
        """The commitment the opponent of the spy's side made to the spy's type."""
        side = side_of(spy)
        return self.commitments[side][self.assigned[side][LETTERS.index(letter_of(spy))]]

    def spies_on_board(self, side: Side) -> tuple[str, ...]:
        return self.board.on_board(side)

    def shown(self, spy: str) -> str | None:
        for o in self.log:
            if o.spy == spy and o.kind == "shown":
                return o.shown
        return None

    def da_shown(self, spy: str) -> bool:
        return self.shown(spy) == "DA"

    def expected(self, forfeits: Sequence[int] = ()) -> tuple[int, str] | None:
        """(seat, record kind) of the record the game waits for; None when drawing or over
        (``forfeits``: the seats that forfeited, which open nothing at the final reveal)."""
        if self.phase == "assign":
            return (0 if not self.commitments[1] else 1), "assign"
        if self.phase == "final":
            for seat in (0, 1):
                committed = bool(self.commitments[1 - seat])
                if committed and seat not in forfeits and self.openings[seat] is None:
                    return seat, "final"
            return None
        if self.phase != "play":
            return None
        answerer = opp(self.turn)
        if self.step in ("show", "answer", "statement"):
            return answerer, self.step
        return self.turn, self.step


def start(table: bytes, tokens_variant: bool, first: str) -> Game:
    return Game(table=table, tokens_variant=tokens_variant, first=first)


# --- setup (§4) -------------------------------------------------------------------------------


def commit_assignment(g: Game, seat: int, points: tuple[Committed, ...]) -> Game:
    """``seat`` commits to the 13 types of the opponent's spies; White's record comes first."""
    target = opp(WHITE if seat == 0 else 1)
    commitments = list(g.commitments)
    commitments[target] = points
    phase: Phase = "draw" if seat == 1 else "assign"
    return replace(g, commitments=tuple(commitments), phase=phase)


def draw_sizes(g: Game) -> tuple[int, ...]:
    """The ``uniform(k)`` sizes of the setup draw: 12 per side, then the first player's."""
    first = (2,) if g.first == "random" else ()
    return ASSIGNMENT_DRAWS + ASSIGNMENT_DRAWS + first


def apply_draw(g: Game, values: list[int]) -> Game:
    per = len(ASSIGNMENT_DRAWS)
    white = assignment(tuple(values[:per]))
    red = assignment(tuple(values[per : 2 * per]))
    if g.first == "random":
        turn: Side = 0 if values[2 * per] == 0 else 1
    else:
        turn = 0 if g.first == "white" else 1
    tokens = (TOKENS, TOKENS) if g.tokens_variant else ((), ())
    return _begin_turn(replace(g, assigned=(white, red), phase="play", turn=turn, tokens=tokens))


# --- the turn (§5) ----------------------------------------------------------------------------


def _begin_turn(g: Game) -> Game:
    step: Step = "token" if g.tokens_variant and g.tokens[g.turn] else "free"
    return replace(
        g, step=step, pending=None, asked=None, moves_left=1, moved=(), swapped=False,
        statements=(), reveal=None, progress=False,
    )


def _end(g: Game, winner: Side | None, reason: str, detail: str = "") -> Game:
    return replace(g, outcome=Outcome(winner, reason, detail), phase="final", step="free")


def _end_turn(g: Game) -> Game:
    quiet = 0 if g.progress else g.quiet + 1
    g = replace(g, quiet=quiet)
    if quiet >= DRAW_LIMIT:
        return _end(g, None, "draw", f"{DRAW_LIMIT} turns without progress")
    return _begin_turn(replace(g, turn=opp(g.turn), turn_no=g.turn_no + 1))


def _remove(g: Game, spy: str) -> Game:
    return replace(g, board=g.board.moved(spy, None), removed=g.removed + (spy,), progress=True)


def _no_spies(g: Game) -> Game | None:
    """§9.2: a player with no spy on the board loses at once."""
    for side in (0, 1):
        if not g.spies_on_board(side):
            return _end(g, opp(side), "no spies left", f"{SIDE_NAMES[side]} has no spy")
    return None


def _briefcase_win(g: Game) -> Game | None:
    """§9.1: the briefcase on a goal row, controlled by a spy of the side whose goal it is."""
    holder = g.board.controller()
    rank = g.board.briefcase.rank
    if holder is not None:
        side = side_of(holder)
        if rank == goal_rank(side):
            return _end(g, side, "briefcase", f"{holder} holds it on {g.board.briefcase}")
    return None


def token_options(g: Game) -> list[tuple[str, tuple[str, ...]]]:
    """§13 ``token``: none, then each legal use of an unused token, in a fixed order."""
    mine = g.spies_on_board(g.turn)
    options: list[tuple[str, tuple[str, ...]]] = [("none", ())]
    if "reveal" in g.tokens[g.turn]:
        options += [("reveal", (s,)) for s in mine]
    if "double" in g.tokens[g.turn] and len(mine) >= 2:
        options.append(("double", ()))
    if "swap" in g.tokens[g.turn]:
        options += [("swap", (a, b)) for i, a in enumerate(mine) for b in mine[i + 1 :]]
    return options


def use_token(g: Game, token: str, spies: tuple[str, ...]) -> Game:
    """TOKEN_STEP (§10); ``resign`` is taken here too (§5)."""
    if token == "resign":
        return resign(g)
    if (token, spies) not in token_options(g):
        raise Illegal(f"{token} {' '.join(spies)} is not a token use {SIDE_NAMES[g.turn]} has")
    if token == "none":
        return replace(g, step="free")
    tokens = list(g.tokens)
    tokens[g.turn] = tuple(t for t in g.tokens[g.turn] if t != token)
    g = replace(g, tokens=tuple(tokens))
    if token == "reveal":
        return replace(g, step="show", reveal=spies[0])
    if token == "double":
        return replace(g, step="free", moves_left=2)
    return _swap(g, spies[0], spies[1])


def _swap(g: Game, a: str, b: str) -> Game:
    where_a, where_b = g.board.position(a), g.board.position(b)
    assert where_a is not None and where_b is not None
    board = g.board.moved(a, None).moved(b, where_a).moved(a, where_b)
    board = Situation(board.spies, board.briefcase, g.board.promoted)
    goal = {a: where_b.rank, b: where_a.rank}
    due = tuple(
        s for s in sorted((a, b), key=letter_of)
        if s not in board.promoted and goal[s] == goal_rank(g.turn)
    )
    g = replace(g, board=board, swapped=True, moves_left=0, statements=due)
    if due:
        return replace(g, step="statement")
    return _after_swap(g)


def _after_swap(g: Game) -> Game:
    won = _briefcase_win(g)
    return won if won is not None else replace(g, step="free")


def _observe(g: Game, *observed: Observation) -> Game:
    """Add public observations to the log, refusing any that no assignment can explain."""
    candidates = [list(side) for side in g.candidates]
    for o in observed:
        side, index = side_of(o.spy), LETTERS.index(letter_of(o.spy))
        candidates[side][index] &= _allowed(o)
        what = o.kind + (f" {o.line}" if o.line else "") + (f" {o.shown}" if o.shown else "")
        if not candidates[side][index]:
            raise Violation(f"no type of {o.spy} gives every answer recorded for it ({what})")
        if not perfect_matching(tuple(candidates[side])):
            raise Violation(f"'{what}' for {o.spy} contradicts the record: no way to give "
                            f"{SIDE_NAMES[side]}'s 13 spies the 13 types fits every observation")
    return replace(g, log=g.log + observed,
                   candidates=(tuple(candidates[0]), tuple(candidates[1])))


def show(g: Game, type_id: str, seq: int) -> Game:
    """The opponent shows the type of the spy a reveal token named (its proof checked)."""
    spy = g.reveal
    assert spy is not None
    g = _observe(g, Observation(seq, spy, "shown", shown=type_id))
    return replace(g, reveal=None, step="free")


def free_options(g: Game, opponents_da: str | None) -> list[tuple[str, str | None]]:
    """§13 ``free_action``: none, eliminate_own of each spy, eliminate_opp_da of the real DA if
    the deciding seat names it (it knows the opponent's types), resign last."""
    options: list[tuple[str, str | None]] = [("none", None)]
    options += [("eliminate_own", s) for s in g.spies_on_board(g.turn)]
    if opponents_da is not None and opponents_da in g.spies_on_board(opp(g.turn)):
        options.append(("eliminate_opp_da", opponents_da))
    options.append(("resign", None))
    return options


def resign(g: Game) -> Game:
    return _end(g, opp(g.turn), "resignation", f"{SIDE_NAMES[g.turn]} resigns")


def free_action(g: Game, action: str, spy: str | None, seq: int) -> Game:
    """FREE_ACTION_STEP (§8). For eliminate_opp_da, ``rules`` has checked the proof that the
    spy is the opponent's DA; here it is shown to everyone."""
    if action == "resign":
        if spy is not None:
            raise Illegal("resign names no spy")
        return resign(g)
    if action == "none":
        if spy is not None:
            raise Illegal("no free action names no spy")
        return _to_move_step(g)
    if spy is None:
        raise Illegal(f"{action} names a spy")
    owner = g.turn if action == "eliminate_own" else opp(g.turn)
    if side_of(spy) != owner or spy not in g.spies_on_board(owner):
        raise Illegal(f"{action} needs a spy of {SIDE_NAMES[owner]} on the board, not {spy}")
    if action == "eliminate_opp_da":
        g = _observe(g, Observation(seq, spy, "shown", shown="DA"))
    g = _remove(g, spy)
    ended = _no_spies(g)
    return ended if ended is not None else _to_move_step(g)


def _to_move_step(g: Game) -> Game:
    if g.swapped or g.moves_left == 0:
        return _end_turn(g)
    return replace(g, step="announce")


def announce(g: Game, announced: Announcement) -> Game:
    """MOVE_STEP (§6.2): the announcement must be announceable (and under ``double`` the second
    must use another spy). A promoted spy's move is a "yes" at once (§6.3)."""
    if announced.spy in g.moved:
        raise Illegal(f"{announced.spy} already announced this turn")
    line = check_announcement(g.board, g.turn, announced)
    g = replace(g, pending=announced, asked=line, moved=g.moved + (announced.spy,))
    if announced.spy in g.board.promoted:
        return _resolved(_yes(g, None))
    return replace(g, step="answer")


def promotion_due(g: Game) -> bool:
    assert g.pending is not None
    return statement_due(g.board, g.turn, g.pending)


def answer(g: Game, yes: bool, promoted: bool | None, seq: int) -> Game:
    """The opponent's answer (its proof checked by ``rules``), with the promotion statement
    exactly when a "yes" ends an unpromoted spy's own move on its goal row (§6.5)."""
    assert g.pending is not None and g.asked is not None
    due = yes and promotion_due(g)
    if due != (promoted is not None):
        raise Illegal("a promotion statement is due" if due else "no promotion statement is due")
    spy = g.pending.spy
    observed: tuple[Observation, ...] = (Observation(seq, spy, "yes" if yes else "no", g.asked),)
    if promoted is not None:
        observed += (Observation(seq, spy, "promoted" if promoted else "not promoted"),)
    g = _observe(g, *observed)
    if not yes:
        return _resolved(g)
    return _resolved(_yes(g, promoted))


def _yes(g: Game, promoted: bool | None) -> Game:
    """§6.4: capture, move, promotion, briefcase progress, end checks."""
    assert g.pending is not None
    spy, mode, to = g.pending.spy, g.pending.mode, g.pending.to
    occupant = g.board.occupant(to)
    if mode != "throw" and occupant is not None and side_of(occupant) != g.turn:
        g = _remove(g, occupant)
    board = g.board
    if mode == "throw":
        board = Situation(board.spies, to, board.promoted)
    else:
        moved = board.moved(spy, to)
        briefcase = to if mode == "carry" else board.briefcase
        board = Situation(moved.spies, briefcase, board.promoted)
    if promoted:
        board = Situation(board.spies, board.briefcase, tuple(sorted(board.promoted + (spy,))))
        g = replace(g, progress=True)
    g = replace(g, board=board)
    rank = board.briefcase.rank
    if rank not in g.visited:
        g = replace(g, visited=tuple(sorted(g.visited + (rank,))), progress=True)
    won = _briefcase_win(g)
    if won is not None:
        return won
    ended = _no_spies(g)
    return ended if ended is not None else g


def _resolved(g: Game) -> Game:
    """After one announcement: the second of a double, or the end of the turn."""
    if g.phase != "play":
        return g
    left = g.moves_left - 1
    others = [s for s in g.spies_on_board(g.turn) if s not in g.moved]
    g = replace(g, pending=None, asked=None, moves_left=left)
    if left > 0 and others:
        return replace(g, step="announce")
    return _end_turn(g)


def statement(g: Game, promoted: bool, seq: int) -> Game:
    """A promotion statement after a swap (§10), for the first spy still due."""
    spy = g.statements[0]
    kind = "promoted" if promoted else "not promoted"
    g = replace(_observe(g, Observation(seq, spy, kind)), statements=g.statements[1:])
    if promoted:
        promoted_now = tuple(sorted(g.board.promoted + (spy,)))
        g = replace(g, board=Situation(g.board.spies, g.board.briefcase, promoted_now),
                    progress=True)
    if g.statements:
        return g
    return _after_swap(g)


# --- forfeit and the final reveal (§9.5) ------------------------------------------------------


def stop(g: Game) -> Game:
    """Play stops at once (a seat forfeited: the table keeps who and why): the final reveal."""
    return replace(g, phase="final")


def types_of(g: Game, side: Side, opened: tuple[str, ...]) -> dict[str, str]:
    """Each spy of ``side`` with the type its commitment opened to (``opened`` in record order)."""
    return {spy: opened[g.assigned[side][i]] for i, spy in enumerate(SPIES[side])}


def final_open(g: Game, seat: int, opened: tuple[str, ...], forfeits: Sequence[int] = ()
               ) -> Game:
    """``seat`` opened its 13 commitments: they must be the 13 types, and every answer,
    statement and shown type given about the opponent's spies must agree with them (§9.5).
    Both already hold once the openings open (``rules`` checks that): the ``assign`` record
    proved the 13 commitments are the 13 types and every observation came with a membership
    proof; they are checked again here as the rulebook states, at a cost not worth saving."""
    if Counter(opened) != Counter(TYPE_IDS):
        raise Violation(f"the 13 commitments open to {', '.join(opened)}, not the 13 types")
    side = opp(WHITE if seat == 0 else 1)
    if g.assigned[side]:
        truth = types_of(g, side, opened)
        for o in g.log:
            if o.spy in truth and not o.allows(truth[o.spy]):
                what = o.kind + (f" {o.line}" if o.line else "")
                raise Violation(
                    f"record {o.seq}: '{what}' for {o.spy} is false, its type is {truth[o.spy]}"
                )
    openings = list(g.openings)
    openings[seat] = opened
    g = replace(g, openings=tuple(openings))
    return replace(g, phase="over") if g.expected(forfeits) is None else g
