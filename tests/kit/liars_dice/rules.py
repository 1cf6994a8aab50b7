"""Liar's Dice on the table: cups committed, dice rolled by the beacon, bids, calls, openings.

Theory of operation
-------------------
The state is ``Table`` (below): the rulebook's ``model.Game`` and the seats that forfeited and
what their going left unjudged. A seat cannot choose its dice, and nobody else sees them until
the round is counted:

1. ``cup``: every seat still in, in seat order, commits to a fresh 32-byte nonce
   (``crypto.commit``, purpose ``liars-dice/cup``, bound to its seat and the round, so a cup
   copied from another seat opens for nobody);
2. a ``Draw``: the table's beacon gives the round's seed, which nobody knew when it committed;
   a seat's dice are ``dice(nonce, seed, how many)``, so only it knows them, and it could not
   have picked them (its nonce was bound before the seed existed);
3. ``bid`` (``{count, face}``) in turn from the round's starter, until a seat writes ``liar``
   (``{}``) instead: the last bid is called;
4. ``open``: every seat still in, in seat order, opens its cup (``{nonce}``), checked at once
   (a nonce that does not open the cup is the writer's ``BadOpening``); once all are open the
   round is counted (``model.count``).

=====  =============  ===================================  ===========================
kind   writer         body                                 when
=====  =============  ===================================  ===========================
cup    each seat in   ``{digest}``: commitment to a nonce   round start, seat order
bid    the bidder     ``{count, face}``                     after the draw, in turn
liar   the bidder     ``{}``: the last bid is a lie         instead of a bid
open   each seat in   ``{nonce}``: opens its cup            after a call; after a forfeit
=====  =============  ===================================  ===========================

The kit does the rest (``engines.game``, ``engines.table``): the body schemas, the turn and the
chain, the seq and the proof context of each record, the ask-once memo, the beacon, the
forfeits and the result. A forfeit (a fraud proven, a seat declared absent) stops play, as in
every game (``engines.table``, "What a forfeiter owes"): once the round's dice are rolled, the
seats still in open their cups (the final reveal, the same ``open``), else nothing is left to
open. A call whose count needed the forfeiter's closed cup is ``Unjudged``; nothing else in
Liar's Dice is hidden, so nothing else can be judged late: every act is checked as it is
written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spycraft.crypto.commit import Commitment
from spycraft.crypto.errors import BadOpening
from spycraft.crypto.hashing import tagged_hash, uniform_from
from spycraft.crypto.records import Genesis, Record
from spycraft.engines.game import Rules, TableSide
from spycraft.engines.schema import Body
from spycraft.engines.table import Draw, GameNeed, Over, Result, Turn, Unjudged

from . import ABOUT, model
from .model import Game

GAME = "liars-dice"
CUP = "liars-dice/cup"
SIDES = tuple(f"seat {s}" for s in range(4))


@dataclass(frozen=True, kw_only=True)
class Table(TableSide):
    """The game's state: the rulebook's ``Game`` and the table-side fields (``TableSide``: who
    forfeited, what their going left unjudged)."""

    game: Game
    called_at: int = 0  # the seq of the round's ``liar`` record


def cup_commitment(seat: int, number: int, nonce: bytes) -> Commitment:
    return Commitment.to(CUP, [seat, number], nonce)


def dice(nonce: bytes, seed: bytes, count: int) -> tuple[int, ...]:
    """A cup's dice: ``count`` faces from the round's seed and the cup's nonce, sorted."""
    source = tagged_hash("liars-dice/dice", [seed, nonce])
    return tuple(sorted(uniform_from(source, i, 6) + 1 for i in range(count)))


def still_in(t: Table) -> tuple[int, ...]:
    return model.in_play(t.game, t.forfeits)


class LiarsDice(Rules[Table]):
    about = ABOUT
    sides: tuple[str, ...] = SIDES
    final_reveal = ("open",)

    def seats_of(self, state: Table) -> int:
        return state.game.n

    def initial(self, genesis: Genesis) -> Table:
        return Table(game=model.start(len(genesis.seats), bool(genesis.options["wild_ones"])))

    def next(self, state: Table) -> GameNeed:
        g = state.game
        if state.forfeits:
            opener = self.opener(state) if g.rolled else None
            if opener is None:
                return Over(None, (), state.unjudged)
            return Turn(opener, ("open",))
        won = model.winner(g)
        if won is not None:
            rounds = len(g.counted)
            return Over(Result(SIDES[won], "last dice standing",
                               detail=f"after {rounds} round{'s' * (rounds != 1)}"))
        missing = [s for s in still_in(state) if g.cups[s] is None]
        if missing:
            return Turn(missing[0], ("cup",))
        if not g.rolled:
            return Draw("dice")
        if g.caller is None:
            seat = model.bidder(g)
            if not g.bids:
                return Turn(seat, ("bid",))
            return Turn(seat, ("bid", "liar") if model.legal_bids(g) else ("liar",))
        opener = self.opener(state)
        assert opener is not None  # the last cup opened counts the round
        return Turn(opener, ("open",))

    def opener(self, state: Table) -> int | None:
        g = state.game
        held = state.held
        return next((s for s in still_in(state)
                     if g.cups[s] is not None and g.opened[s] is None and s not in held), None)

    def on_draw(self, state: Table, seed: bytes) -> Table:
        return replace(state, game=model.roll(state.game, seed))

    def forfeit(self, state: Table, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (), confirm: tuple[int, ...] = ()) -> Table:
        g = state.game
        unjudged = state.unjudged
        if g.caller is not None and g.opened[seat] is None:
            needs = f"seat {seat}'s dice"
            unjudged += (Unjudged(g.caller, state.called_at, "liar call", needs),)
        forfeits, held = state.with_forfeit(seat, held)
        return replace(state, forfeits=forfeits, held=held, unjudged=unjudged)

    def side_of(self, state: Table, seat: int) -> str:
        return SIDES[seat]

    def seen_secret(self, state: Table, seat: int) -> str | None:
        g = state.game
        if not g.rolled or g.cups[seat] is None:
            return None
        if any(cup is not None for cup in g.opened):
            return "its dice and the cups opened before its own"
        return "its dice"


# --- the moves (declared in ``definition.MOVES``) --------------------------------------------


def apply_cup(t: Table, r: Record, body: Body) -> Table:
    cups = list(t.game.cups)
    cups[r.seat] = body["digest"]
    return replace(t, game=replace(t.game, cups=tuple(cups)))


def apply_bid(t: Table, r: Record, body: Body) -> Table:
    return replace(t, game=model.bid(t.game, r.seat, body["count"], body["face"]))


def apply_liar(t: Table, r: Record, body: Body) -> Table:
    return replace(t, game=model.call(t.game, r.seat), called_at=r.seq)


def apply_open(t: Table, r: Record, body: Body) -> Table:
    g = t.game
    cup = g.cups[r.seat]
    assert cup is not None  # only a seat whose cup is in is asked to open it
    if not Commitment(cup, CUP).opens_to([r.seat, g.number], body["nonce"]):
        raise BadOpening(r.seat, r.seq, f"the nonce does not open seat {r.seat}'s cup")
    g = model.open_cup(g, r.seat, dice(body["nonce"], g.seed, g.dice[r.seat]))
    t = replace(t, game=g)
    if t.forfeits or any(g.opened[s] is None for s in still_in(t)):
        return t
    return replace(t, game=model.count(g), called_at=0)

