"""What a seat sees of Liar's Dice, as view models (``engines.viewmodel``): ``screen``, ``story``.

The picture: the round, whose turn it is and the bid to beat; one row per seat (its dice left,
its cup: hidden, or the dice it showed); the round's bids; the rounds counted. A seat's own dice
are its private facts. A round's cups, beacon values and openings are told once each, when the
step they make is done (the dice rolled, the round counted).
"""

from __future__ import annotations

from spycraft.crypto.records import Record
from spycraft.engines.screens import forfeit_story, outcome, seat_list, sentence
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Cell, Event, Fact, Grid, Screen

from . import ABOUT, model
from .model import Counted, Game
from .rules import SIDES, Table, still_in
from .view import SeatView


def faces(dice: tuple[int, ...]) -> str:
    return " ".join(map(str, dice)) if dice else "no dice"


def _now(t: Table, viewer: int | None) -> str:
    g = t.game
    if t.forfeits:
        return "play stopped: the cups still closed are opened"
    missing = [s for s in still_in(t) if g.cups[s] is None]
    if missing:
        return f"seat {missing[0]} shakes its cup"
    if not g.rolled:
        return "the dice are being rolled"
    if g.caller is None:
        seat = model.bidder(g)
        return "your bid" if seat == viewer else f"seat {seat} to bid"
    return f"seat {g.caller} called the bid a lie: the cups are opened"


def _status(t: Table, viewer: int | None) -> tuple[Fact, ...]:
    g = t.game
    last = g.bids[-1] if g.bids else None
    return (
        Fact("Round", str(g.number)),
        Fact("Now", _now(t, viewer), "turn"),
        Fact("Bid to beat", f"seat {last.seat}: {last.words()}" if last else "no bid yet"),
        Fact("Dice in play", str(model.dice_in_play(g))),
        Fact("Ones", "wild: they count for every face but their own" if g.wild else "not wild"),
    )


def _cups(t: Table, viewer: int | None, own: tuple[int, ...] | None) -> Grid:
    g = t.game
    rows = []
    for s in range(g.n):
        opened = g.opened[s]
        if s in t.forfeits:
            cup = Cell("forfeited", "muted")
        elif not g.dice[s]:
            cup = Cell("out", "muted")
        elif opened is not None:
            cup = Cell(faces(opened))
        elif s == viewer and own is not None:
            cup = Cell(f"{faces(own)} (only you see them)", "you")
        else:
            cup = Cell("hidden", "hidden")
        rows.append((Cell(f"seat {s}", "you" if s == viewer else ""), Cell(str(g.dice[s])), cup))
    return Grid("Cups", ("Seat", "Dice left", "Cup"), tuple(rows))


def _bids(g: Game) -> Grid:
    rows = tuple((Cell(f"seat {b.seat}"), Cell(b.words())) for b in g.bids)
    return Grid(f"Bids of round {g.number}", ("Seat", "Bid"), rows)


def _counted_row(c: Counted) -> tuple[Cell, ...]:
    return (Cell(str(c.number)), Cell(f"seat {c.bid.seat}: {c.bid.words()}"),
            Cell(f"seat {c.caller}"), Cell(str(c.shown)), Cell(f"seat {c.loser}", "bad"))


def _rounds(g: Game) -> Grid:
    return Grid("Rounds counted", ("Round", "Bid called", "Called by", "Dice shown", "Lost a die"),
                tuple(_counted_row(c) for c in g.counted))


def _reveal(t: Table) -> tuple[Grid, ...]:
    g = t.game
    if any(cup is not None for cup in g.opened):
        rows = tuple((Cell(f"seat {s}"), Cell(faces(cup) if cup is not None else "closed"))
                     for s, cup in enumerate(g.opened) if g.dice[s])
        return (Grid(f"Cups opened in round {g.number}", ("Seat", "Dice"), rows),)
    last = g.counted[-1] if g.counted else None
    rows = tuple((Cell(f"seat {s}"), Cell(faces(cup))) for s, cup in
                 enumerate(last.dice if last else ()) if cup)
    title = f"Cups opened in round {last.number}" if last else "No cup was opened"
    return (Grid(title, ("Seat", "Dice"), rows),)


def screen(table_state: TableState[Table], seat: int | None,
           seat_view: SeatView | Table | None) -> Screen:
    """The table as ``seat`` sees it (None: the public picture)."""
    t = table_state.game
    own = seat_view if isinstance(seat_view, SeatView) and seat_view.seat == seat else None
    dice = own.dice if own is not None else None
    private: tuple[Fact, ...] = ()
    if own is not None:
        private = (Fact("You play", f"seat {own.seat}", "you"),
                   Fact("Your dice", faces(dice) if dice is not None else "not rolled yet"))
    grids = (_cups(t, seat, dice), _bids(t.game), _rounds(t.game))
    result = table_state.result
    end = None
    if result is not None:
        side = SIDES[seat] if seat is not None and seat < t.game.n else None
        why = [sentence(result.reason)] if not result.forfeits else []
        end = outcome(result, side, str, why, _reveal(t))
    return Screen(ABOUT.title, _status(t, seat), grids, private, end)


# --- history ---------------------------------------------------------------------------------


def story(before: Table | None, record: Record, after: Table) -> Event | None:
    """One history line for ``record``; None for a step that tells nothing yet (a cup, a beacon
    value before the dice are rolled, an opening before the round is counted, the result)."""
    if before is None or record.kind == "result":
        return None
    old, new = before, after
    g = new.game
    who = f"seat {record.seat}"
    if record.kind in ("fraud", "abandon"):
        gone = seat_list([s for s in new.forfeits if s not in old.forfeits])
        return Event(record.seq, sentence(forfeit_story(record.kind, who, gone)), g.number)
    if record.kind == "beacon":
        if g.rolled and not old.game.rolled:
            cups = len(still_in(new))
            text = f"round {g.number}: {model.dice_in_play(g)} dice are rolled under {cups} cups"
            return Event(record.seq, sentence(text), g.number)
        return None
    if record.kind == "bid":
        return Event(record.seq, sentence(f"{who} bids {g.bids[-1].words()}"), g.number)
    if record.kind == "liar":
        last = g.bids[-1]
        text = f"{who} calls seat {last.seat}'s bid of {last.words()} a lie"
        return Event(record.seq, sentence(text), g.number)
    if record.kind == "open":
        if len(new.game.counted) > len(old.game.counted):
            c = new.game.counted[-1]
            held = "the bid holds" if c.shown >= c.bid.count else "the bid was a lie"
            dice = "; ".join(f"seat {s} {faces(cup)}" for s, cup in enumerate(c.dice) if cup)
            text = (f"the cups show {c.shown} for {c.bid.words()}: {held}, "
                    f"seat {c.loser} loses a die")
            return Event(record.seq, sentence(text), c.number, why=dice, tone="bad")
        if new.forfeits and all(new.game.opened[s] is not None for s in still_in(new)):
            return Event(record.seq, "The cups still closed are opened", g.number)
        return None
    return None
