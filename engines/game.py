"""The game kit: what a game declares, and the one way the table and a seat use it.

Theory of operation
-------------------
A game is a package with one file per role (the same layout for every game):

``model.py``     the rulebook as pure functions over the public state (no records, no crypto);
``protocol.py``  the ``Rules`` subclass: state, what it needs next, how each record applies;
``seat.py``      the ``GameSeat`` subclass: the private side, how it builds each record;
``bots.py``      decision policies (``Agent``s);
``view.py``      what one seat sees: text pictures, one line per record, hindsight for replay;
``definition.py``  the declaration: the ``moves`` table, the options and the ``GameDefinition``;
``__init__.py``  its ``ABOUT`` (``engines.about``: title, seat counts, options as plain data, read
                 without importing the engine) and, on first use, the declaration's names.

Each record kind is declared once, as a ``Move``: the schema of its body (``engines.schema``),
how the protocol applies it, how a seat builds it, and which decision (if any) it asks the
player. ``Rules.apply`` is the only dispatch: an unknown kind or a body that does not fit its
schema is the writer's ``MalformedRecord``; an ``Unattributed`` toolkit error is attributed to
the record's seat and seq; any other exception inside a move (``KeyError``, ``TypeError``) is a
bug in the engine and is not dressed up as a peer's fault. ``GameSeat.build`` is the matching
dispatch on the private side: it hands the seat's builder a ``Build`` with the proof context and
the entropy stream of this very record.

Decisions are asked once: ``GameSeat.ask`` writes the chosen option to the seat's memo (keyed by
the seq of the record being built and the decision kind) before the record is signed, so a seat
asked again at the same seq (after a crash, or because its record lost a race) answers the same
and never signs two different records for one seq.

Options are declared too (``Option``): the genesis checks them (``Rules.check_options``) and the
command line offers one flag per option (``cli``), so adding a game touches no shared file but
the registry's list.

Adding a game: write the package above (hidden steps composed from ``engines.protocols``: the
role deal, deck operations; rule errors from ``engines.errors``; ``side_of`` and ``seen_secret``
for the one forfeit rule of ``engines.table``), add one line to ``registry._MODULES``, and the
conformance suite (``tests/conformance``) plays and checks it; its own tests are the rulebook's
examples, its cheaters and its leaks. Its final reveal follows the kit's rule of what a
forfeiter owes (``engines.table``): it asks openings only of the seats that have not forfeited,
judges nothing on a forfeiter's closed secrets (the sub-protocols say what the opened ones
prove: ``role_deal.roles_known``) and returns what that leaves open as ``Unjudged`` in its
``Over``; ``tests/conformance/test_forfeits.py`` holds every game to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedRecord, MalformedValue, Unattributed
from spycraft.crypto.records import Genesis, Record
from spycraft.engines import about
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.schema import Fields
from spycraft.engines.seat import SeatContext
from spycraft.engines.table import GameNeed, Turn

Option = about.Option  # declared in engines.about, which the command line reads without an engine

S = TypeVar("S")
V = TypeVar("V")
Body = dict[str, Any]


def proof_context(game: str, table: bytes, seq: int, seat: int, kind: str) -> bytes:
    """What every proof in a record is bound to: game, table, place in the chain, author, kind."""
    return encode([f"spycraft/{game}", table, seq, seat, kind])


@dataclass(frozen=True)
class Build:
    """What a seat's builder gets for the record it writes at ``seq``."""

    turn: Turn
    agent: Agent
    seq: int
    context: bytes  # proof_context of this record
    entropy: SeededEntropy  # this record's own stream (kind, seq) from the seat's master secret


@dataclass(frozen=True)
class Move(Generic[S]):
    """One record kind: its body schema, how it applies, how a seat builds it, what it asks."""

    kind: str
    body: Fields
    apply: Callable[[S, Record, Body], S]
    build: Callable[[Any, S, Build], Body]  # (the game's seat, state, build) -> body
    asks: str | None = None  # the decision kind the builder asks the player, if any


def moves(*declared: Move[S]) -> dict[str, Move[S]]:
    """The moves table, refusing a kind declared twice."""
    table: dict[str, Move[S]] = {}
    for move in declared:
        if move.kind in table:
            raise ValueError(f"record kind {move.kind!r} declared twice")
        table[move.kind] = move
    return table


def check_body(move: Move[Any], record: Record, seats: int) -> Body:
    """The record's body if it fits the move's schema; MalformedRecord naming the field if not."""
    try:
        move.body.check(record.body, seats, record.kind)
    except MalformedValue as exc:
        raise MalformedRecord(record.seat, record.seq, exc.what) from None
    body: Body = record.body
    return body


class Rules(Generic[S]):
    """The kit's half of ``table.GameRules``: options and the one record dispatch.

    A game's protocol subclasses it and adds ``initial``, ``next``, ``on_draw``, ``forfeit``,
    ``side_of`` and ``seen_secret`` (and ``public_opponents`` where teams are public); ``after``
    is the hook that runs after every move.
    """

    name: str
    seat_counts: tuple[int, ...]
    sides: tuple[str, ...]
    options: tuple[Option, ...] = ()
    final_reveal: tuple[str, ...] = ()  # the record kinds that open what was hidden until the end

    def __init__(self, table: Mapping[str, Move[S]]) -> None:
        self.moves = dict(table)

    def check_options(self, options: Mapping[str, Any], seats: int) -> None:
        names = {o.name for o in self.options}
        if set(options) != names:
            wanted = ", ".join(sorted(names)) or "none"
            raise ValueError(f"{self.name} options are exactly: {wanted}")
        for option in self.options:
            option.check(options[option.name])
        if seats not in self.seat_counts:
            raise ValueError(f"{self.name} is not played with {seats} seats")

    def seats_of(self, state: S) -> int:
        raise NotImplementedError

    def apply(self, state: S, record: Record) -> S:
        move = self.moves.get(record.kind)
        if move is None:
            raise MalformedRecord(record.seat, record.seq, f"no record kind {record.kind!r}")
        body = check_body(move, record, self.seats_of(state))
        try:
            new = move.apply(self.before(state, record), record, body)
        except Unattributed as exc:
            raise exc.attribute(record.seat, record.seq) from exc
        return self.after(new)

    def before(self, state: S, record: Record) -> S:
        return state

    def after(self, state: S) -> S:
        return state

    def initial(self, genesis: Genesis) -> S:
        raise NotImplementedError

    def public_opponents(self, state: S, seat: int) -> frozenset[int]:
        """Where sides are public and two, the seats of the other one (``table.GameRules``);
        none by default: roles are hidden, or each seat plays for itself."""
        return frozenset()

    def next(self, state: S) -> GameNeed:
        raise NotImplementedError


class GameSeat(Generic[S, V]):
    """The kit's half of a game's seat: the one build dispatch, the ask-once memo, and the
    seat's typed view ``V`` of a state ``S`` (what its agent and the UI read)."""

    def __init__(self, context: SeatContext, table: Mapping[str, Move[S]], game: str) -> None:
        self.context = context
        self.seat = context.index
        self.moves = table
        self.game_name = game

    def view(self, state: S) -> V:
        raise NotImplementedError

    def kept_secrets(self) -> tuple[bytes, ...]:
        """Values this seat publishes only in the final reveal (the leak scan looks for them)."""
        return ()

    def entropy(self, kind: str, seq: int) -> SeededEntropy:
        return SeededEntropy(self.context.secret("entropy", kind, seq))

    def context_of(self, state: S, seq: int, kind: str) -> bytes:
        return proof_context(self.game_name, self.context.genesis.table, seq, self.seat, kind)

    def next_seq(self, state: S) -> int:
        """The seq of the record being built (a game whose state knows it may say so itself)."""
        return self.context.seq

    def build(self, state: S, turn: Turn, agent: Agent) -> tuple[str, Any]:
        kind = turn.kinds[0]
        seq = self.next_seq(state)
        build = Build(turn, agent, seq, self.context_of(state, seq, kind), self.entropy(kind, seq))
        return kind, self.moves[kind].build(self, state, build)

    def ask(self, seq: int, decision: Decision, agent: Agent) -> Any:
        """The option chosen for ``decision`` at ``seq``: asked once, then read from the memo."""
        key = f"ask/{seq}/{decision.kind}"
        if key not in self.context.memo:
            index = agent.decide(decision)
            if not 0 <= index < len(decision.options):
                raise ValueError(f"agent chose option {index} of {len(decision.options)}")
            self.context.memo[key] = index
        return decision.options[self.context.memo[key]]
