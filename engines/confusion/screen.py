"""Confusion as a UI draws it: the picture of one moment (``screen``) and its history (``story``).

Theory of operation
-------------------
``screen`` reads the table state (``TableState`` over ``model.Game``) and, for a seat, its
``view.SeatView`` (live, or from ``view.hindsight`` in replay), whose only secret is the types of
the enemy's spies that this seat assigned (§12). The picture is:

* ``status``: who plays which colour, whose turn and at which step (an announcement waiting for
  its answer is spelled out), the briefcase and who controls it, the ranks it reached, the quiet
  turns towards a draw, the spies left, the tokens left;
* ``board``: the 11x11 board (spies by id, ``+`` for a promoted spy, ``[..]`` on the briefcase;
  its compact form names a spy by its letter alone, White's in capitals, for a small screen);
  both notebook pages of §11 (candidate types per spy, derived from the public log only, so they
  are the same for every reader); the movement types with their lines in words;
* ``private``: the enemy spies' true types as this seat assigned them, each next to what the
  enemy can deduce, with the type's moves in ``explain``;
* ``result``: the outcome from the viewer's side and the final reveal (every spy's type).

Types are named (Sentry, Sprinter, Double Agent), never by id; directions are read from the
spy's owner, as the rules do: forward is toward the opponent's home row. ``story`` tells a
question with its answer in one line once the answer is given, and what the "yes" did.
"""

from __future__ import annotations

from spycraft.crypto.records import Record, SignedRecord
from spycraft.engines.confusion import notebook
from spycraft.engines.confusion.board import (
    FILES,
    LETTERS,
    SIDE_NAMES,
    SIZE,
    SPIES,
    Direction,
    Line,
    Side,
    Square,
    goal_rank,
    home_rank,
    opp,
    side_of,
)
from spycraft.engines.confusion.model import DRAW_LIMIT, Game, types_of
from spycraft.engines.confusion.movement import (
    ASSIGNED,
    CROWNS,
    DOUBLE_AGENT,
    PROMOTED,
    TYPE_IDS,
    MovementType,
    movement_type,
)
from spycraft.engines.confusion.rules import State
from spycraft.engines.confusion.view import SeatView
from spycraft.engines.screens import forfeit_story, forfeiters, outcome, sentence
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Cell, Event, Fact, Grid, Result, Screen

TITLE = "Confusion"

WORDS: dict[Direction, str] = {
    "N": "forward",
    "NE": "forward-right",
    "E": "right",
    "SE": "back-right",
    "S": "back",
    "SW": "back-left",
    "W": "left",
    "NW": "forward-left",
}
"""Each owner-frame direction as its owner sees it (§2)."""

STEP_TEXT = {
    "token": "may use a token",
    "show": "is shown a type (reveal token)",
    "free": "may take a free action",
    "announce": "announces a move",
    "answer": "waits for the answer",
    "statement": "waits for a promotion statement",
}


# --- types and moves in words -------------------------------------------------------------------


def type_name(type_id: str) -> str:
    if type_id == DOUBLE_AGENT.id:
        return "Double Agent"
    if type_id == PROMOTED.id:
        return "promoted"
    return movement_type(type_id).name


def _reach(m: int) -> str:
    return "1" if m == 1 else f"up to {m}"


def moves_text(piece: MovementType) -> str:
    """A type's lines in words: "forward up to 2, forward diagonals 1" (all types are left-right
    symmetric, so each pair of mirrored directions is said once)."""
    if piece.maxima is None:
        return "no lines of its own: the opponent answers every move as they like"
    maxima = [piece.max(d) for d in WORDS]
    if len(set(maxima)) == 1:
        return f"{_reach(maxima[0])} in any direction"
    pairs: tuple[tuple[str, Direction], ...] = (
        ("forward", "N"),
        ("forward diagonals", "NE"),
        ("sideways", "E"),
        ("back diagonals", "SE"),
        ("back", "S"),
    )
    parts = []
    for label, direction in pairs:
        m = piece.max(direction)
        if m:
            parts.append(f"{label} {_reach(m)}")
    return ", ".join(parts)


def type_explain(type_id: str) -> str:
    piece = movement_type(type_id)
    text = f"{type_name(type_id)}: {moves_text(piece)}."
    if type_id in CROWNS:
        text += " A crown: promoted when it reaches its goal row (then 2 in any direction)."
    if piece is DOUBLE_AGENT:
        text += (
            " It never promotes, and once the opponent names it with a free action it leaves "
            "the board."
        )
    return text


def line_text(line: Line) -> str:
    return f"{WORDS[line.direction]} {line.distance}"


def _types_text(types: tuple[str, ...]) -> str:
    if len(types) == len(TYPE_IDS):
        return "any type (no clue yet)"
    if not types:
        return "none: some answer was false"
    if len(types) > len(TYPE_IDS) // 2:
        missing = [type_name(t) for t in TYPE_IDS if t not in types]
        return "any but " + ", ".join(missing)
    return ", ".join(type_name(t) for t in types)


# --- the screen ---------------------------------------------------------------------------------


def _side(seat: int) -> Side:
    return 0 if seat == 0 else 1


def _board_grid(g: Game, mine: Side | None) -> Grid:
    rows, small = [], []
    for y in range(SIZE - 1, -1, -1):
        cells = [Cell(str(y + 1), "muted")]
        letters = [Cell(str(y + 1), "muted")]
        for x in range(SIZE):
            where = Square(x, y)
            spy = g.board.occupant(where)
            promoted = "+" if spy in g.board.promoted else ""
            text = "." if spy is None else spy + promoted
            # The compact form: a spy by its letter, White's in capitals, Red's in small ones.
            letter = "." if spy is None else (spy[-1] if side_of(spy) == 0 else
                                              spy[-1].lower()) + promoted
            tone = "" if spy is None else f"side:{SIDE_NAMES[side_of(spy)]}"
            if spy is not None and mine is not None and side_of(spy) == mine:
                tone = "you"
            if where == g.board.briefcase:
                text = f"[{' ' if spy is None else text}]"
                letter = f"[{' ' if spy is None else letter}]"
                tone = tone or "turn"
            cells.append(Cell(text, tone))
            letters.append(Cell(letter, tone))
        rows.append(tuple(cells))
        small.append(tuple(letters))
    compact = Grid("Board: A is W-A, a is R-A",
                   ("", *FILES), tuple(small))
    return Grid("Board", ("", *FILES), tuple(rows), compact)


def _notebook_grid(g: Game, side: Side) -> Grid:
    page = notebook.page(g.log, side)
    rows = []
    for spy in SPIES[side]:
        candidates = page.of(spy)
        where = g.board.position(spy)
        if spy in g.removed:
            place = "removed"
        elif spy in g.board.promoted:
            place = f"{where}, promoted"
        else:
            place = str(where)
        mark = "known" if len(candidates) == 1 else "may be the Double Agent" if page.suspect(
            spy) else ""
        tone = "muted" if spy in g.removed else "good" if len(candidates) == 1 else ""
        rows.append((Cell(spy), Cell(place, tone), Cell(_types_text(candidates)), Cell(mark)))
    return Grid(
        f"{SIDE_NAMES[side]}'s spies: what anyone can deduce",
        ("Spy", "Square", "Candidate types", "Note"),
        tuple(rows),
    )


def _types_grid() -> Grid:
    rows = []
    for piece in (*ASSIGNED, PROMOTED):
        if piece is PROMOTED:
            name, promotes = "Promoted spy", "already promoted"
        else:
            name = type_name(piece.id)
            promotes = "yes, on its goal row" if piece.crown else "no"
        rows.append((Cell(name), Cell(moves_text(piece)), Cell(promotes)))
    return Grid("Movement types", ("Type", "Moves (from its owner's side)", "Promotes"),
                tuple(rows))


def _pending(g: Game) -> str | None:
    if g.pending is None or g.asked is None:
        return None
    a = g.pending
    origin = g.board.position(a.spy)
    answerer = SIDE_NAMES[opp(g.turn)]
    return (
        f"{SIDE_NAMES[g.turn]} announces {a.spy} {_mode_words(a.mode)} {origin} to {a.to} "
        f"({line_text(g.asked)}): {answerer} must answer whether its type allows it"
    )


def _mode_words(mode: str) -> str:
    return {
        "move": "moves",
        "leave": "leaves the briefcase and moves",
        "carry": "carries the briefcase",
        "throw": "throws the briefcase",
    }.get(mode, mode)


def _status(g: Game, seat: int | None) -> tuple[Fact, ...]:
    facts: list[Fact] = []
    if seat is not None:
        side = _side(seat)
        facts.append(
            Fact(
                "You play",
                f"{SIDE_NAMES[side]}, rank {home_rank(side)} to rank {goal_rank(side)}",
                "you",
                "You do not know how your own spies move: your opponent assigned their types "
                "and answers yes or no to each move you announce.",
            )
        )
    if g.phase == "assign":
        facts.append(Fact("Setup", "each player commits to the types of the other's spies"))
        return tuple(facts)
    if g.phase == "draw":
        facts.append(Fact("Setup", "the shared random draw places the types on the spies"))
        return tuple(facts)
    if g.phase == "play":
        tone = "you" if seat is not None and _side(seat) == g.turn else "turn"
        facts.append(
            Fact("Now", f"turn {g.turn_no}, {SIDE_NAMES[g.turn]} {STEP_TEXT[g.step]}", tone)
        )
    holder = g.board.controller()
    control = f"controlled by {holder}" if holder is not None else "nobody controls it"
    facts.append(
        Fact(
            "Briefcase",
            f"on {g.board.briefcase}, {control}",
            explain="A player wins when one of their spies controls the briefcase on the "
            "opponent's home row.",
        )
    )
    facts.append(Fact("Ranks reached", ", ".join(map(str, g.visited))))
    facts.append(
        Fact(
            "Quiet turns",
            f"{g.quiet} of {DRAW_LIMIT}",
            explain=f"Turns in a row with no capture, removal, promotion or new rank for the "
            f"briefcase; at {DRAW_LIMIT} the game is a draw.",
        )
    )
    facts.append(
        Fact(
            "Spies on the board",
            ", ".join(f"{SIDE_NAMES[s]} {len(g.spies_on_board(s))}" for s in (0, 1)),
        )
    )
    if g.tokens_variant:
        left = "; ".join(
            f"{SIDE_NAMES[s]}: {', '.join(g.tokens[s]) or 'none'}" for s in (0, 1)
        )
        facts.append(
            Fact(
                "Tokens left",
                left,
                explain="Once a game each, at the start of a turn: reveal (the opponent shows "
                "one of your spies' types), double (announce two moves with two spies), swap "
                "(two of your spies change squares; no move that turn).",
            )
        )
    return tuple(facts)


def _private(g: Game, view: SeatView) -> tuple[Fact, ...]:
    side = _side(view.seat)
    enemy = opp(side)
    if not view.opponent_types:
        return (Fact("Enemy spies", "their types are not placed yet"),)
    page = notebook.page(g.log, enemy)
    facts = [
        Fact(
            "Enemy spies",
            f"you assigned the types of {SIDE_NAMES[enemy]}'s spies",
            "you",
            "You answer their moves; the Double Agent's answers are yours to choose.",
        )
    ]
    for spy, type_id in view.opponent_types:
        where = "removed" if spy in g.removed else str(g.board.position(spy))
        deduced = _types_text(page.of(spy))
        facts.append(
            Fact(
                spy,
                f"{type_name(type_id)} ({where}); they can deduce: {deduced}",
                "muted" if spy in g.removed else "",
                type_explain(type_id),
            )
        )
    return tuple(facts)


def _result(table: TableState[State], g: Game, seat: int | None) -> Result | None:
    result = table.result
    if result is None:
        return None
    mine = None if seat is None else SIDE_NAMES[_side(seat)]
    why = () if result.forfeits else (_outcome_text(g),)
    return outcome(result, mine, lambda side: side, [w for w in why if w], _reveal(g))


def _outcome_text(g: Game) -> str:
    """Why a game played to its end ended (forfeits are told by ``screens.outcome``)."""
    ended = g.outcome
    if ended is None:
        return ""
    loser = SIDE_NAMES[opp(ended.winner)] if ended.winner is not None else "a player"
    if ended.reason == "briefcase":
        return f"{g.board.controller()} holds the briefcase on {g.board.briefcase}, the goal row"
    if ended.reason == "no spies left":
        return f"{loser} has no spy left on the board"
    if ended.reason == "resignation":
        return f"{loser} resigned"
    if ended.reason == "draw":
        return f"{DRAW_LIMIT} turns without progress"
    return ""


def _reveal(g: Game) -> tuple[Grid, ...]:
    """Every spy's type, from each side's final openings (§9.5)."""
    known: list[dict[str, str]] = []
    for side in (0, 1):
        opened = g.openings[opp(side)]
        known.append(types_of(g, side, opened) if opened is not None and g.assigned[side] else {})
    if not any(known):
        return ()
    rows = []
    for letter in LETTERS:
        cells = [Cell(letter)]
        for side in (0, 1):
            spy = SPIES[side][LETTERS.index(letter)]
            type_id = known[side].get(spy)
            text = "not opened" if type_id is None else type_name(type_id)
            if spy in g.removed:
                text += " (removed)"
            elif spy in g.board.promoted:
                text += " (promoted)"
            cells.append(Cell(text, "muted" if spy in g.removed else f"side:{SIDE_NAMES[side]}"))
        rows.append(tuple(cells))
    return (Grid("Every spy's type", ("Spy", "White", "Red"), tuple(rows)),)


def screen(table: TableState[State], seat: int | None, view: SeatView | State | None) -> Screen:
    """The table as ``seat`` sees it (None: the public picture, for spectators and replay)."""
    g: Game = table.game.game
    seat_view = view if isinstance(view, SeatView) and seat is not None else None
    mine = None if seat is None else _side(seat)
    board: tuple[Grid, ...] = (_board_grid(g, mine),)
    if g.phase not in ("assign", "draw"):
        board += (_notebook_grid(g, 0), _notebook_grid(g, 1))
    board += (_types_grid(),)
    notes = [
        ("Spies are named by side and letter: W-C is White's spy C. A + marks a promoted spy; "
        "[ ] is the briefcase."),
    ]
    pending = _pending(g)
    if pending is not None and g.phase == "play":
        notes.append(pending)
    if g.reveal is not None:
        notes.append(f"{SIDE_NAMES[opp(g.turn)]} must show the type of {g.reveal}")
    private = _private(g, seat_view) if seat_view is not None else ()
    return Screen(TITLE, _status(g, seat), board, private, _result(table, g, seat), tuple(notes))


# --- the story ----------------------------------------------------------------------------------


def _consequences(before: Game, after: Game) -> tuple[str, str]:
    """What a resolved move changed, and why the draw count starts again (if it does)."""
    parts: list[str] = []
    progress: list[str] = []
    for spy in after.removed[len(before.removed):]:
        parts.append(f"{spy} is captured")
        progress.append("a spy left the board")
    if before.board.briefcase != after.board.briefcase:
        holder = after.board.controller()
        parts.append(
            f"the briefcase is now on {after.board.briefcase}, "
            + (f"controlled by {holder}" if holder else "uncontrolled")
        )
    elif before.board.controller() != after.board.controller():
        holder = after.board.controller()
        parts.append(f"{holder} takes the briefcase" if holder else "the briefcase is left alone")
    for spy in after.board.promoted:
        if spy not in before.board.promoted:
            parts.append(f"{spy} is promoted: it now moves 2 in any direction")
            progress.append("a promotion")
    for rank in after.visited:
        if rank not in before.visited:
            parts.append(f"the briefcase reaches rank {rank} for the first time")
            progress.append("a new rank for the briefcase")
    text = "".join(f"; {p}" for p in parts) + _ending(after)
    why = ""
    if progress:
        why = f"Progress ({', '.join(progress)}): the count of quiet turns starts again"
    return text, why


def _ending(g: Game) -> str:
    if g.outcome is None:
        return ""
    if g.outcome.winner is None:
        return f". Draw: {DRAW_LIMIT} turns without progress"
    return f". {SIDE_NAMES[g.outcome.winner]} wins"


def _statement_text(promoted: bool, spy: str) -> str:
    if promoted:
        return f"{spy} is promoted"
    return f"{spy} is not promoted (not a crown)"


def story(before: State | None, record: Record | SignedRecord, after: State) -> Event | None:
    """One history line for ``record`` (or the signed record that carries it), or None (a
    commitment before the draw, a token or free action not used, an announcement still waiting
    for its answer)."""
    rec = record.record if isinstance(record, SignedRecord) else record
    kind, seq, body = rec.kind, rec.seq, rec.body
    new: Game = after.game
    old: Game | None = None if before is None else before.game
    turn = None if old is None else old.turn_no
    who = SIDE_NAMES[rec.seat] if rec.seat in (0, 1) else f"seat {rec.seat}"
    if kind == "assign":
        if new.phase == "draw":
            return Event(seq, "Both players commit, in secret, to the types of each other's spies")
        return None
    if kind == "beacon":
        if old is not None and old.phase == "draw" and new.phase == "play":
            return Event(
                seq,
                "The shared random draw places the types on the spies; "
                f"{SIDE_NAMES[new.turn]} moves first",
            )
        return None
    if kind == "result":
        winner = body.get("winner") if isinstance(body, dict) else None
        text = f"{winner} won" if winner else "The game ends with no winner"
        return Event(seq, text, turn, tone="good")
    if kind in ("fraud", "abandon"):
        gone = forfeiters(rec, set(after.forfeits) - set(() if before is None else before.forfeits))
        names = " and ".join(SIDE_NAMES[s] for s in sorted(gone) if s in (0, 1)) or "A player"
        writer = SIDE_NAMES[rec.seat] if rec.seat in (0, 1) else f"seat {rec.seat}"
        return Event(seq, sentence(forfeit_story(kind, writer, names, len(gone) > 1)), turn,
                     tone="bad")
    if kind == "final":
        if new.phase == "over":
            return Event(seq, "Every type is shown and checked against every answer given",
                         turn)
        return None
    if old is None:
        return None
    if kind == "token":
        token, spies = body["token"], body["spies"]
        if token == "none":
            return None
        if token == "resign":
            return Event(seq, f"{who} resigns" + _ending(new), turn, tone="bad")
        if token == "reveal":
            return Event(seq, f"{who} uses the reveal token on {spies[0]}", turn)
        if token == "double":
            return Event(seq, f"{who} uses the double token: two moves with two spies", turn)
        text = f"{who} uses the swap token: {spies[0]} and {spies[1]} change squares"
        consequences, why = _consequences(old, new)
        return Event(seq, text + consequences, turn, why)
    if kind == "show":
        spy = old.reveal or "the spy"
        return Event(seq, f"{who} shows that {spy} is the {type_name(body['type'])} (proven)",
                     turn)
    if kind == "free":
        action, spy = body["action"], body["spy"]
        if action == "none":
            return None
        if action == "resign":
            return Event(seq, f"{who} resigns" + _ending(new), turn, tone="bad")
        consequences, why = _consequences(old, new)
        if action == "eliminate_own":
            text = f"{who} removes its own spy {spy} (its type stays hidden)"
        else:
            enemy = SIDE_NAMES[side_of(spy)] if spy else "the enemy"
            text = f"{who} eliminates {spy}, {enemy}'s Double Agent (proven)"
        return Event(seq, text + consequences.replace(f"; {spy} is captured", ""), turn, why)
    if kind == "announce":
        if new.step == "answer" and new.pending is not None:
            return None  # told with its answer
        spy = body["spy"]
        origin = old.board.position(spy)
        text = f"{who} moves promoted {spy} from {origin} to {body['to']} (no question asked)"
        if body["mode"] != "move":
            text = (
                f"{who}'s promoted {spy} {_mode_words(body['mode'])} from {origin} to {body['to']}"
            )
        consequences, why = _consequences(old, new)
        return Event(seq, text + consequences, turn, why)
    if kind == "answer":
        asked = old.pending
        if asked is None or old.asked is None:
            return None
        mover = SIDE_NAMES[old.turn]
        origin = old.board.position(asked.spy)
        text = (
            f"{mover} announces {asked.spy} {_mode_words(asked.mode)} {origin} to {asked.to} "
            f"({line_text(old.asked)}): {who} answers {'yes' if body['yes'] else 'no'}"
        )
        if body["promotion"] is not None:
            text += "; " + _statement_text(bool(body["promotion"][0]), asked.spy)
        consequences, why = _consequences(old, new)
        consequences = consequences.replace(f"; {asked.spy} is promoted: it now moves", "; it "
                                            "now moves")
        tone = "good" if body["yes"] else "muted"
        return Event(seq, text + consequences, turn, why, tone)
    if kind == "statement":
        spy = old.statements[0] if old.statements else "the spy"
        consequences, why = _consequences(old, new)
        consequences = consequences.replace(f"; {spy} is promoted: it now moves", "; it now moves")
        return Event(seq, f"{who} states: " + _statement_text(bool(body["promoted"]), spy)
                     + consequences, turn, why)
    return None
