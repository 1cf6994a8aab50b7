"""Liar's Dice as a rulebook: pure functions over the public state (no records, no crypto).

``Game`` is what everyone at the table knows: the dice each seat has left, the round's bids,
who called the last one a lie and the dice opened so far. A seat's own dice are not here: they
are hidden in its cup until the round is counted (``rules`` commits them; ``seat`` knows
them). The rules (docs/adding-a-game.md, "The rules of Liar's Dice"):

* every seat starts with ``DICE`` dice; each round every seat still in rolls them under its cup;
* the round's starter bids first, then each seat still in, in seat order: a bid is a count and a
  face ("3 fives": at least three dice on the table show a five), and each bid is higher than
  the last, by count, or by face at the same count; a count is at most the dice in play;
* instead of bidding (never before the round's first bid), a seat calls the last bid a lie;
  every cup is opened and counted: with ``wild`` (the option ``wild_ones``) a one counts for
  every face of a bid but the ones' own;
* if the bid holds, the caller loses a die; if not, the bidder does; the loser starts the next
  round (the seat after it, if it has no dice left); a seat with no dice is out;
* the last seat with dice wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from spycraft.engines.errors import Illegal

DICE = 3  # each seat's dice at the start (a short game: the conformance suite plays many)
FACES = (1, 2, 3, 4, 5, 6)
NAMES = ("one", "two", "three", "four", "five", "six")
PLURALS = ("ones", "twos", "threes", "fours", "fives", "sixes")


@dataclass(frozen=True)
class Bid:
    seat: int
    count: int
    face: int

    def words(self) -> str:
        """``3 fives``, ``1 six``."""
        return f"{self.count} {(NAMES if self.count == 1 else PLURALS)[self.face - 1]}"


@dataclass(frozen=True)
class Counted:
    """A round counted: the bid called, who called it, every seat's dice, what they showed."""

    number: int
    bid: Bid
    caller: int
    dice: tuple[tuple[int, ...], ...]  # each seat's dice, () for a seat that was out
    shown: int  # how many dice counted for the bid
    loser: int


@dataclass(frozen=True)
class Game:
    n: int
    wild: bool
    dice: tuple[int, ...]  # dice left per seat
    number: int = 1  # the round
    starter: int = 0
    cups: tuple[bytes | None, ...] = ()  # this round's commitments (protocol), by seat
    rolled: bool = False  # the round's dice are rolled (the beacon drew its seed)
    seed: bytes = b""
    bids: tuple[Bid, ...] = ()
    caller: int | None = None  # who called the last bid a lie
    opened: tuple[tuple[int, ...] | None, ...] = ()  # dice shown this round, by seat
    counted: tuple[Counted, ...] = ()  # every round counted so far


def start(n: int, wild: bool) -> Game:
    return Game(n, wild, (DICE,) * n, cups=(None,) * n, opened=(None,) * n)


def in_play(g: Game, gone: Sequence[int] = ()) -> tuple[int, ...]:
    """The seats that still have dice (and have not forfeited), in seat order."""
    return tuple(s for s in range(g.n) if g.dice[s] > 0 and s not in gone)


def dice_in_play(g: Game) -> int:
    return sum(g.dice)


def after(g: Game, seat: int) -> int:
    """The seat still in after ``seat``, in seat order round the table."""
    playing = in_play(g)
    return next((s for s in playing if s > seat), playing[0])


def bidder(g: Game) -> int:
    return g.starter if not g.bids else after(g, g.bids[-1].seat)


def higher(bid: Bid | None, count: int, face: int) -> bool:
    return bid is None or count > bid.count or (count == bid.count and face > bid.face)


def legal_bids(g: Game) -> tuple[tuple[int, int], ...]:
    """Every (count, face) the bidder may bid now, lowest first."""
    last = g.bids[-1] if g.bids else None
    return tuple((c, f) for c in range(1, dice_in_play(g) + 1) for f in FACES
                 if higher(last, c, f))


def matches(die: int, face: int, wild: bool) -> bool:
    return die == face or (wild and die == 1 and face != 1)


def shown(dice: Sequence[Sequence[int]], face: int, wild: bool) -> int:
    return sum(1 for cup in dice for die in cup if matches(die, face, wild))


def bid(g: Game, seat: int, count: int, face: int) -> Game:
    """``seat`` bids; ``Illegal`` (the kit names the record's seat and seq) if it may not."""
    if count > dice_in_play(g):
        raise Illegal(f"{count} is more dice than the {dice_in_play(g)} in play")
    if not higher(g.bids[-1] if g.bids else None, count, face):
        raise Illegal(f"a bid must be higher than {g.bids[-1].words()}")
    return replace(g, bids=g.bids + (Bid(seat, count, face),))


def call(g: Game, seat: int) -> Game:
    return replace(g, caller=seat)


def roll(g: Game, seed: bytes) -> Game:
    return replace(g, rolled=True, seed=seed)


def open_cup(g: Game, seat: int, dice: tuple[int, ...]) -> Game:
    opened = list(g.opened)
    opened[seat] = dice
    return replace(g, opened=tuple(opened))


def count(g: Game) -> Game:
    """The round counted once every cup is open: a die lost, the next round begun."""
    assert g.caller is not None and g.bids
    last = g.bids[-1]
    dice = tuple(cup or () for cup in g.opened)
    total = shown(dice, last.face, g.wild)
    loser = g.caller if total >= last.count else last.seat
    left = tuple(d - (1 if s == loser else 0) for s, d in enumerate(g.dice))
    done = Counted(g.number, last, g.caller, dice, total, loser)
    g = replace(g, dice=left, counted=g.counted + (done,))
    starter = loser if left[loser] else after(g, loser)
    return replace(g, number=g.number + 1, starter=starter, cups=(None,) * g.n, rolled=False,
                   seed=b"", bids=(), caller=None, opened=(None,) * g.n)


def winner(g: Game) -> int | None:
    playing = in_play(g)
    return playing[0] if len(playing) == 1 else None
