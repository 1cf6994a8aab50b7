"""The private side of one Liar's Dice seat: its cups, its dice, its bids.

Theory of operation: a seat's nonce for round r is ``secret("cup", r)``, derived from its
master secret, so a resumed seat has the same cups; its dice follow from the nonce and the
round's public seed (``rules.dice``) and are never written anywhere before it opens its cup.
Its one decision, each turn, is a bid or a call of the last bid (``bid_or_call``): asked once
through the kit's memo (``GameSeat.ask``), then read back both to pick the record kind
(``kind_of``) and to write the bid, so a seat asked again at the same seq says the same.
"""

from __future__ import annotations

from spycraft.engines.agent import Agent
from spycraft.engines.game import Build, GameSeat
from spycraft.engines.schema import Body
from spycraft.engines.table import Turn

from . import model
from .model import Bid
from .rules import Table, cup_commitment, dice
from .view import SeatView

CALL = None  # the option that calls the last bid a lie


def option_label(option: tuple[int, int] | None) -> str:
    if option is None:
        return "call it a lie"
    count, face = option
    return Bid(0, count, face).words()


class LiarsDiceSeat(GameSeat[Table, SeatView]):
    def label(self, view: SeatView, kind: str, option: tuple[int, int] | None) -> str:
        return option_label(option)

    def nonce(self, number: int) -> bytes:
        return self.context.secret("cup", number)

    def dice(self, t: Table) -> tuple[int, ...] | None:
        g = t.game
        if not g.rolled or g.cups[self.seat] is None or not g.dice[self.seat]:
            return None
        return dice(self.nonce(g.number), g.seed, g.dice[self.seat])

    def view(self, state: Table) -> SeatView:
        return SeatView(state, self.seat, self.dice(state))

    def kept_secrets(self) -> tuple[bytes, ...]:
        rounds = len(self.context.genesis.seats) * model.DICE  # no game has more
        return tuple(self.nonce(r) for r in range(1, rounds + 1))

    def bid_or_call(self, t: Table, agent: Agent) -> tuple[int, int] | None:
        g = t.game
        options: list[tuple[int, int] | None] = [CALL] if g.bids else []
        options += model.legal_bids(g)
        own = " ".join(map(str, self.dice(t) or ()))
        last = f"seat {g.bids[-1].seat} bid {g.bids[-1].words()}" if g.bids else "no bid yet"
        prompt = (f"Round {g.number}, {model.dice_in_play(g)} dice in play ({last}). "
                  f"Your dice: {own}. Bid higher" + (", or call the last bid a lie" * bool(g.bids)))
        choice: tuple[int, int] | None = self.ask(t, agent, "bid", options, prompt=prompt)
        return choice

    def kind_of(self, state: Table, turn: Turn, agent: Agent) -> str:
        if turn.kinds == ("bid", "liar"):
            return "liar" if self.bid_or_call(state, agent) is CALL else "bid"
        return turn.kinds[0]

    def build_cup(self, t: Table, b: Build) -> Body:
        number = t.game.number
        return {"digest": cup_commitment(self.seat, number, self.nonce(number)).digest}

    def build_bid(self, t: Table, b: Build) -> Body:
        choice = self.bid_or_call(t, b.agent)
        assert choice is not None
        count, face = choice
        return {"count": count, "face": face}

    def build_liar(self, t: Table, b: Build) -> Body:
        return {}

    def build_open(self, t: Table, b: Build) -> Body:
        return {"nonce": self.nonce(t.game.number)}
