"""A tiny game for testing the table on its own: matching pennies with commitments, on the kit.

Each round both seats commit to a coin (seat 0 then seat 1), a beacon draw decides which seat
wins on a match, then both open. Two rounds; the seat with more points wins.

It is written as a game author writes one (docs/adding-a-game.md): each record kind is a
``Move`` (body schema, apply, build, what it asks), the rules subclass the kit's ``Rules`` and
the seat the kit's ``GameSeat``, so the table's tests run through the same dispatch, schema
check and ask-once memo as the five games.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spycraft.crypto.commit import Commitment
from spycraft.crypto.errors import BadOpening
from spycraft.crypto.hashing import uniform_from
from spycraft.crypto.records import Genesis, Record
from spycraft.engines.agent import RandomAgent
from spycraft.engines.game import About, Build, GameSeat, Move, Rules, moves
from spycraft.engines.registry import declare
from spycraft.engines.schema import BYTES32, Body, Int, body
from spycraft.engines.table import Draw, GameNeed, Over, Result, Turn
from spycraft.engines.viewmodel import Event, Fact, Screen

PURPOSE = "coin"


@dataclass(frozen=True)
class Pennies:
    round: int = 1
    commits: tuple[bytes, ...] = ()
    drawn: int | None = None
    coins: tuple[int, ...] = ()
    points: tuple[int, int] = (0, 0)
    forfeited: tuple[int, ...] = ()


def apply_coin(s: Pennies, record: Record, b: Body) -> Pennies:
    return replace(s, commits=s.commits + (b["commit"],))


def apply_open(s: Pennies, record: Record, b: Body) -> Pennies:
    coin, nonce = b["coin"], b["nonce"]
    if not Commitment(s.commits[record.seat], PURPOSE).opens_to(coin, nonce):
        raise BadOpening(record.seat, record.seq, "the coin does not open the commitment")
    coins = s.coins + (coin,)
    if len(coins) < 2:
        return replace(s, coins=coins)
    match = coins[0] == coins[1]
    winner = s.drawn if match else 1 - (s.drawn or 0)
    points = tuple(p + (1 if i == winner else 0) for i, p in enumerate(s.points))
    return Pennies(s.round + 1, points=(points[0], points[1]))


class PenniesRules(Rules[Pennies]):
    about = About("pennies", "Matching pennies", (2,))
    sides = ("seat0", "seat1")

    def seats_of(self, state: Pennies) -> int:
        return 2

    def initial(self, genesis: Genesis) -> Pennies:
        return Pennies()

    def next(self, s: Pennies) -> GameNeed:
        if s.forfeited:
            return Over(None)
        if s.round > 2:
            a, b = s.points
            return Over(Result(None if a == b else f"seat{0 if a > b else 1}", "points"))
        if len(s.commits) < 2:
            return Turn(len(s.commits), ("coin",))
        if s.drawn is None:
            return Draw("match")
        return Turn(len(s.coins), ("open",))

    def on_draw(self, s: Pennies, seed: bytes) -> Pennies:
        return replace(s, drawn=uniform_from(seed, 0, 2))

    def forfeit(self, s: Pennies, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (),
                confirm: tuple[int, ...] = ()) -> Pennies:  # nothing is left to open
        return replace(s, forfeited=s.forfeited + (seat,))

    def side_of(self, s: Pennies, seat: int) -> str:
        return f"seat{seat}"

    def seen_secret(self, s: Pennies, seat: int) -> None:
        return None


class PenniesSeat(GameSeat[Pennies, Pennies]):
    def view(self, state: Pennies) -> Pennies:
        return state

    def nonce(self, state: Pennies) -> bytes:
        return self.context.secret("coin", state.round)

    def build_coin(self, state: Pennies, b: Build) -> Body:
        coin: int = self.ask(state, b.agent, "coin", (0, 1), prompt="heads or tails?",
                             labels=("heads", "tails"))
        self.context.memo[f"coin/{state.round}"] = coin  # kept until this seat opens it
        return {"commit": Commitment.to(PURPOSE, coin, self.nonce(state)).digest}

    def build_open(self, state: Pennies, b: Build) -> Body:
        return {"coin": self.context.memo[f"coin/{state.round}"], "nonce": self.nonce(state)}


MOVES: dict[str, Move[Pennies]] = moves(
    Move("coin", body(commit=BYTES32), apply_coin, PenniesSeat.build_coin, "coin"),
    Move("open", body(coin=Int(0, 1), nonce=BYTES32), apply_open, PenniesSeat.build_open),
)


RULES = PenniesRules(MOVES)
GAME = declare(
    RULES.about,
    RULES,
    PenniesSeat,
    {"random": lambda entropy, seat: RandomAgent(entropy)},
    lambda table, seat, view: Screen("Matching pennies", (Fact("State", repr(table.game)),)),
    lambda before, record, after: Event(record.seq, record.kind),
    lambda states, seat: list(states),
)
