"""The game kit: what a game declares, and the one way the table and a seat use it.

Theory of operation
-------------------
A game is a package with one file per role (the same layout for every game):

``model.py``     the rulebook as pure functions over the public state (no records, no crypto);
``rules.py``     the game's rules: the ``Rules`` subclass (state, what it needs next, how each
                 record applies);
``seat.py``      the ``GameSeat`` subclass: the seat's private side, how it builds each record;
``bots.py``      decision policies (``Agent``s);
``view.py``      what one seat knows (its ``SeatView``), live and in hindsight for replay;
``screen.py``    what one seat sees, as view models (``engines.viewmodel``): ``screen`` and
                 ``story``, the game's one presentation (the application and the line mode);
``definition.py``  the declaration: the ``moves`` table, the rules and the ``GameDefinition``
                 (``registry.declare``);
``__init__.py``  its ``ABOUT`` (``engines.about``: title, seat counts, options as plain data, read
                 without importing the engine) and, on first use, the declaration's names.

A game's state has one shape in every game: its rulebook model as ``game`` and the table-side
fields (``TableSide``: who forfeited, in order, and what the final reveal could not judge), in
a frozen dataclass that subclasses ``TableSide`` and adds what its records carry between them
(``KeyShareState`` is one, for the games of key shares). A move whose rule reads only the model
is ``on_model(rule)``: it gets ``state.game`` and the rest of the state is kept.

Each record kind is declared once, as a ``Move``: the schema of its body (``engines.schema``),
how the rules apply it, how a seat builds it, and which decision (if any) it asks the
player. ``Rules.apply`` is the only dispatch: an unknown kind or a body that does not fit its
schema is the writer's ``MalformedRecord``; an ``Unattributed`` toolkit error is attributed to
the record's seat and seq; any other exception inside a move (``KeyError``, ``TypeError``) is a
bug in the engine and is not dressed up as a peer's fault. ``GameSeat.build`` is the matching
dispatch on the private side: it hands the seat's builder a ``Build`` with the proof context and
the entropy stream of this very record.

The table checks a record's seat, kind and place in the chain before the game sees it, so no
move checks the turn again, and the seq is the record's: no game state counts records. Every
proof in a record is bound to ``record_context`` (game, table, seq, seat, kind): a move reads
it as ``record.context`` (``Rules.apply`` hands each move the record as a ``Played``), and the
seat's ``Build`` carries the same bytes for the record it writes (``GameSeat.seq`` is its seq),
so no game names itself to make or check a proof.

Decisions are asked one way and once: ``GameSeat.ask`` makes the ``Decision`` (the seat's view,
the options, the question from the game's ``prompts`` or ``prompt``, each option's ``label``)
and ``GameSeat.asked_once`` writes the chosen option to the seat's memo (keyed by the seq of
the record being built and the decision kind, with the record's prev kept beside it) before the
record is signed, so a seat asked again at the same place (after a crash, or because the table
moved while it thought) answers the same, while a seat asked at that seq on another branch
(after a rollback) is asked again. The memo keeps the last place of each seq and kind only: a
seat that comes back to a place where it already signed is never asked at all, since the
session sends the record it keeps for that place (``p2p.protocol``: ``own``), which is what
stops it signing two different records for one place. A turn that offers several kinds
(SpyNet's deploy) asks which in ``GameSeat.kind_of``.

What every game of hidden key shares does alike is the kit's too. A sub-protocol
(``engines.protocols``: the role deal, the deck) is a ``SubProtocol``; a game composes it with
``SubProtocol.moves``, naming where its state keeps the sub-protocol's, and gets its records,
schemas, apply and build. ``KeyShareRules`` and ``KeyShareSeat`` are the final reveal of one key
share per seat and the forfeits around it (The Resistance, Shady Agents, SpyNet), over the
kit's fields of their state (``KeyShareState``: the act, the secrets, who revealed, who
forfeited, what was proven or left unjudged): the game declares what play needs, where its
state keeps the sub-protocol that dealt the key shares (a ``Dealing``: each seat's public share,
when a secret is dealt, what a seat has seen), its ``audit`` of the opened secrets (``Cheat``: a
hidden move proven illegal) and its natural result.

A game's name, seat counts and options are declared once, in its package's ``ABOUT``
(``engines.about``), which its ``Rules`` name as ``about``: the genesis checks the options
(``Rules.check_options``), the command line offers one flag per option (``cli``, from ``ABOUT``
without the engine) and ``GameDefinition.options`` makes genesis options from keywords, so
adding a game touches no shared file but the registry's list. ``registry.declare`` makes the
``GameDefinition`` from the parts, each named once, typed by the game's state and its seat's
view so that parts wired to another game's are a type error.

Adding a game (docs/adding-a-game.md walks through it, with Liar's Dice of ``tests/kit`` as the
example): write the package above (hidden steps composed from ``engines.protocols``: the
role deal, deck operations; a final reveal of key shares from ``KeyShareRules``; rule errors
from ``engines.errors``; ``side_of`` and ``seen_secret`` for the one forfeit rule of
``engines.table``), add one line to ``registry._MODULES``, and the
conformance suite (``tests/conformance``) plays and checks it; its own tests are the rulebook's
examples, its cheaters and its leaks. Its final reveal follows the kit's rule of what a
forfeiter owes (``engines.table``): it asks openings only of the seats that have not forfeited,
judges nothing on a forfeiter's closed secrets (the sub-protocols say what the opened ones
prove: ``role_deal.roles_known``) and returns what that leaves open as ``Unjudged`` in its
``Over``; ``tests/conformance/test_forfeits.py`` holds every game to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from spycraft.crypto import elgamal
from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import Entropy, SeededEntropy
from spycraft.crypto.errors import (
    BadOpening,
    MalformedRecord,
    MalformedValue,
    RuleViolation,
    Unattributed,
)
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.records import Genesis, Record
from spycraft.engines import about
from spycraft.engines.absence import quorum
from spycraft.engines.agent import Agent, Choice, Decision
from spycraft.engines.evolve import evolve
from spycraft.engines.schema import Body, Encoded, Fields, body
from spycraft.engines.seat import SeatContext
from spycraft.engines.table import (
    FRAUD,
    Forfeit,
    GameNeed,
    Over,
    Result,
    Turn,
    Unjudged,
    still_to_reveal,
)

About = about.About  # a game as the command line knows it (engines.about: read without an engine)
Option = about.Option

S = TypeVar("S")
V = TypeVar("V")
P = TypeVar("P")  # the state of a sub-protocol (engines.protocols)
H = TypeVar("H")  # a seat's private hand in a sub-protocol
H_co = TypeVar("H_co", covariant=True)
O = TypeVar("O")  # an option of a decision
M = TypeVar("M")  # a game's rulebook model
M_co = TypeVar("M_co", covariant=True)
SM = TypeVar("SM", bound="OnModel[Any]")  # a game state with its model as ``game``


def proof_context(game: str, table: bytes, seq: int, seat: int, kind: str) -> bytes:
    """What every proof in a record is bound to: game, table, place in the chain, author, kind."""
    return encode([f"spycraft/{game}", table, seq, seat, kind])


def record_context(game: str, record: Record) -> bytes:
    """The proof context of ``record`` itself: its table, its seq, its writer and its kind (the
    table has checked that the record is of this table before any game reads it)."""
    return proof_context(game, record.table, record.seq, record.seat, record.kind)


@dataclass(frozen=True)
class Played(Record):
    """A record as a game's move reads it (``Rules.apply`` makes it): the signed record of
    ``game``, with its proof context, so no game names itself to check a proof."""

    game: str

    @property
    def context(self) -> bytes:
        """``record_context`` of this record: what every proof in it is bound to."""
        return record_context(self.game, self)


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
    apply: Callable[[S, Played, Body], S]
    build: Callable[[Any, S, Build], Body]  # (the game's own GameSeat subclass, ...) -> body
    asks: str | None = None  # the decision kind the builder asks the player, if any


# --- the state: the rulebook's model and the table-side fields ---------------------------------


@dataclass(frozen=True, kw_only=True)
class TableSide:
    """The table-side fields of every game's state, beside its rulebook model (``game``): the
    seats that forfeited, in order, and what the final reveal could not judge (``Unjudged``,
    for the ``Over``). A game's state subclasses it (``KeyShareState`` does, for the games of
    key shares) and adds ``game`` and what its records carry between them."""

    forfeits: tuple[int, ...] = ()
    unjudged: tuple[Unjudged, ...] = ()
    # The seats that open nothing more though they did not forfeit: every seat once a claim
    # was made in play (``engines.table``, "Nothing opens on a claim made in play").
    held: tuple[int, ...] = ()

    def with_forfeit(self, seat: int, held: tuple[int, ...]) -> tuple[
            tuple[int, ...], tuple[int, ...]]:
        """The ``forfeits`` and ``held`` once ``seat`` forfeited, ``held`` being the seats that
        open nothing more because of it (``GameRules.forfeit``)."""
        return self.forfeits + (seat,), tuple(sorted(set(self.held) | set(held)))


class OnModel(Protocol[M_co]):
    """A game state whose rulebook model is ``game``."""

    @property
    def game(self) -> M_co: ...


def on_model(step: Callable[[M, Played, Body], M]) -> Callable[[SM, Played, Body], SM]:
    """A move's ``apply`` from a rule of the model alone: ``step`` reads the record and the
    rulebook model (``state.game``) and returns the model after it; the rest of the state is
    kept."""

    def apply(state: SM, record: Played, body: Body) -> SM:
        return evolve(state, game=step(state.game, record, body))

    return apply


def moves(*declared: Move[S]) -> dict[str, Move[S]]:
    """The moves table, refusing a kind declared twice."""
    table: dict[str, Move[S]] = {}
    for move in declared:
        if move.kind in table:
            raise ValueError(f"record kind {move.kind!r} declared twice")
        table[move.kind] = move
    return table


def check_body(move: Move[S], record: Record, seats: int) -> Body:
    """The record's body if it fits the move's schema; MalformedRecord naming the field if not."""
    try:
        move.body.check(record.body, seats, record.kind)
    except MalformedValue as exc:
        raise MalformedRecord(record.seat, record.seq, exc.what) from None
    body: Body = record.body
    return body


class Rules(Generic[S]):
    """The kit's half of ``table.GameRules``: options and the one record dispatch.

    A game's rules subclass it, name the game's ``about`` (its ``ABOUT``: the name, the seat
    counts and the options, declared once, which the command line reads without the engine) and
    add ``initial``, ``next``, ``on_draw``, ``forfeit``, ``side_of`` and ``seen_secret`` (and
    ``public_opponents`` where teams are public, ``hidden_side`` where a hidden one can be a
    quorum); ``after`` is the hook that runs after every
    move. The table has checked the record's seat, kind and place in the chain
    (``Table.apply``) before a move sees it, so no move checks the turn again; the seq of a
    record is on the record, so no game state counts records.
    """

    about: About
    sides: tuple[str, ...]
    final_reveal: tuple[str, ...] = ()  # the record kinds that open what was hidden until the end
    confirming: tuple[str, ...] = ()  # the kinds that only build on a forfeit (``table``)

    def __init__(self, table: Mapping[str, Move[S]]) -> None:
        self.name: str = self.about.name
        self.seat_counts: tuple[int, ...] = self.about.seat_counts
        self.options: tuple[Option, ...] = self.about.options
        self.moves = dict(table)

    def check_options(self, options: Mapping[str, object], seats: int) -> None:
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
        played = Played(record.table, record.seq, record.prev, record.seat, record.kind,
                        record.body, self.name)
        try:
            new = move.apply(state, played, body)
        except Unattributed as exc:
            raise exc.attribute(record.seat, record.seq) from exc
        return self.after(new)

    def after(self, state: S) -> S:
        return state

    def initial(self, genesis: Genesis) -> S:
        raise NotImplementedError

    def public_opponents(self, state: S, seat: int) -> frozenset[int]:
        """Where sides are public and two, the seats of the other one (``table.GameRules``);
        none by default: roles are hidden, or each seat plays for itself."""
        return frozenset()

    def hidden_side(self, state: S, seat: int) -> int:
        """How many seats a side with hidden members may have against ``seat`` where that is a
        quorum of the others (``table.GameRules``); 0 by default: no hidden side is as many."""
        return 0

    def next(self, state: S) -> GameNeed:
        raise NotImplementedError

    def on_draw(self, state: S, seed: bytes) -> S:
        raise NotImplementedError

    def forfeit(self, state: S, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (), confirm: tuple[int, ...] = ()) -> S:
        raise NotImplementedError

    def side_of(self, state: S, seat: int) -> str | None:
        raise NotImplementedError

    def seen_secret(self, state: S, seat: int) -> str | None:
        raise NotImplementedError


class GameSeat(Generic[S, V]):
    """The kit's half of a game's seat: the one build dispatch, the one way to ask the player
    (``ask``, with the game's ``prompts`` or ``prompt`` and its ``label``s), the ask-once memo,
    and the seat's typed view ``V`` of a state ``S`` (what its agent and the UI read)."""

    prompts: Mapping[str, str] = {}  # decision kind -> its question (``prompt``)

    def __init__(self, context: SeatContext, rules: Rules[S]) -> None:
        self.context = context
        self.seat = context.index
        self.moves: Mapping[str, Move[S]] = rules.moves
        self.game_name = rules.name

    def view(self, state: S) -> V:
        raise NotImplementedError

    def kept_secrets(self) -> tuple[bytes, ...]:
        """Values this seat publishes only in the final reveal (the leak scan looks for them)."""
        return ()

    def entropy(self, kind: str, seq: int, place: tuple[str, ...] = ()) -> SeededEntropy:
        """The stream of this seat's record of ``kind`` at ``seq`` (and ``place``, ``place_of``):
        every nonce, randomness and permutation the record holds comes from it."""
        return SeededEntropy(self.context.secret("entropy", kind, seq, *place))

    def place_of(self, seq: int) -> tuple[str, ...]:
        """What makes the stream of the record being built its place's own: nothing at the
        first place this seat built at ``seq`` (so a game without a rollback is byte for byte
        what it was), its prev at any other. After a rollback a seat writes again at a seq it
        wrote at on another branch, over other inputs, and every peer holds both records: from
        one stream, two Schnorr responses would give its key share away, two encryptions the
        ratio of their plaintexts, two shuffles where a card went (red team 18). The first
        place is kept in the memo, which is persisted with the record it was built for."""
        first = self.context.memo.setdefault(f"place/{seq}", self.context.prev)
        return () if bytes(first) == self.context.prev else (self.context.prev.hex(),)

    def context_of(self, state: S, seq: int, kind: str) -> bytes:
        return proof_context(self.game_name, self.context.genesis.table, seq, self.seat, kind)

    @property
    def seq(self) -> int:
        """The seq of the record being built (``TableSeat.build`` sets it)."""
        return self.context.seq

    def kind_of(self, state: S, turn: Turn, agent: Agent) -> str:
        """Which of the turn's kinds this seat writes: the one kind a turn names in most games;
        a turn that offers several (SpyNet's deploy) asks the player here."""
        return turn.kinds[0]

    def build(self, state: S, turn: Turn, agent: Agent) -> tuple[str, Body]:
        kind = self.kind_of(state, turn, agent)
        seq = self.seq
        build = Build(turn, agent, seq, self.context_of(state, seq, kind),
                      self.entropy(kind, seq, self.place_of(seq)))
        return kind, self.moves[kind].build(self, state, build)

    def prompt(self, state: S, kind: str, options: Sequence[object]) -> str:
        """The question of decision ``kind``: ``prompts[kind]``, unless the game words it from
        the state."""
        return self.prompts[kind]

    def label(self, view: V, kind: str, option: object) -> str:
        """How ``option`` of decision ``kind`` reads to a person (unique among the options: the
        line prompt takes it typed back), from what this seat knows."""
        return str(option)

    def ask(
        self,
        state: S,
        agent: Agent,
        kind: str,
        options: Sequence[O],
        *,
        prompt: str | None = None,
        labels: Sequence[str] | None = None,
        seq: int | None = None,
    ) -> O:
        """The player's choice of one of ``options`` for the record being built (or at ``seq``,
        for a record that asks several times): the decision as the agent reads it, with this
        seat's view of ``state``, the question (``prompt``, if not given) and each option's
        label (``label``, if not given), asked once (``asked_once``)."""
        view = self.view(state)
        question = self.prompt(state, kind, options) if prompt is None else prompt
        shown = [self.label(view, kind, o) for o in options] if labels is None else labels
        decision = Decision(self.seat, kind, question, tuple(options), tuple(shown), view)
        chosen: O = self.asked_once(self.seq if seq is None else seq, decision, agent)
        return chosen

    def asked_once(self, seq: int, decision: Decision, agent: Agent) -> Choice:
        """The option chosen for ``decision`` at ``seq`` of the place being built (``prev``):
        asked once, then read from the memo. The memo keeps the place with the answer, so a
        seat asked at that seq again on another branch (the table rolled back past its place:
        another decision, maybe with fewer options) is asked again, never handed the old
        branch's answer; an answer kept without its place (a seat file of an older version) is
        taken if it is one of the options."""
        key, prev = f"ask/{seq}/{decision.kind}", self.context.prev
        kept = self.context.memo.get(key)
        if isinstance(kept, int):
            index: int | None = kept
        else:
            index = kept[0] if kept is not None and bytes(kept[1]) == prev else None
        if index is None or not 0 <= index < len(decision.options):
            index = agent.decide(decision)
            if not 0 <= index < len(decision.options):
                raise ValueError(f"agent chose option {index} of {len(decision.options)}")
            self.context.memo[key] = [index, prev]
        return decision.options[index]


# --- sub-protocols: a hidden step with a state of its own ------------------------------------


class Holding(Protocol[H_co]):
    """A game's seat in a sub-protocol: it holds its private side of it as ``hand``."""

    @property
    def hand(self) -> H_co: ...


@dataclass(frozen=True)
class SubProtocol(Generic[P, H]):
    """A hidden-information sub-protocol that games compose (``engines.protocols``): its record
    kinds, each with its body schema, its step over the sub-protocol's own state ``P`` and its
    builder from a seat's private hand ``H``."""

    kinds: tuple[str, ...]
    schemas: Mapping[str, Fields]
    steps: Mapping[str, Callable[[P, Played, Body], P]]
    builders: Mapping[str, Callable[[H, P, bytes, Entropy], Body]]

    def moves(
        self,
        part: Callable[[S], P],
        put: Callable[[S, P], S],
        kinds: Sequence[str] | None = None,
    ) -> tuple[Move[S], ...]:
        """The moves of ``kinds`` (all of them by default) in a game whose state holds the
        sub-protocol's state (``part`` reads it, ``put`` writes it back): each record is the
        sub-protocol's step, and each seat builds it from the hand it holds as ``hand``."""

        def move(kind: str) -> Move[S]:
            step, builder = self.steps[kind], self.builders[kind]

            def apply(state: S, record: Played, body: Body) -> S:
                return put(state, step(part(state), record, body))

            def build(seat: Holding[H], state: S, b: Build) -> Body:
                return builder(seat.hand, part(state), b.context, b.entropy)

            return Move(kind, self.schemas[kind], apply, build)

        return tuple(move(kind) for kind in (self.kinds if kinds is None else kinds))


# --- the final reveal of one key share per seat ----------------------------------------------

# The acts of a game of key shares (``KeyShareState.act``), in order: the sub-protocol that
# deals the key shares (and the roles or the deck), play, the final reveal, and the end.
SETUP = "setup"
PLAY = "play"
REVEAL = "reveal"
DONE = "done"


@dataclass(frozen=True)
class Cheat:
    """A hidden move the final reveal proves illegal: ``seat``'s record ``seq`` broke ``what``.
    It costs the seat a forfeit (``forfeit``); as an error it is a ``RuleViolation``."""

    seat: int
    seq: int
    what: str

    def error(self) -> RuleViolation:
        return RuleViolation(self.seat, self.seq, self.what)

    def forfeit(self) -> Forfeit:
        return Forfeit(self.seat, self.seq, FRAUD, f"rule violation: {self.what}")


@dataclass(frozen=True, kw_only=True)
class KeyShareState(TableSide):
    """The kit's fields of the state of a game whose final reveal opens one key share per seat
    (``KeyShareRules``), besides the table-side ones; the game's state subclasses it and adds
    its rulebook model (``game``) and its sub-protocols. ``secrets`` holds one entry per seat
    from the start (None until opened), so its length is the table's seat count."""

    act: str = SETUP  # SETUP, PLAY, REVEAL or DONE
    secrets: tuple[Scalar | None, ...] = ()  # each seat's key share secret, once opened
    revealed: tuple[int, ...] = ()  # the seats that opened theirs, in order
    violations: tuple[Cheat, ...] = ()  # what the opened secrets proved illegal
    # After an abandon proven in play or a fraud written in play (``settling``), nobody opens
    # a secret before the abandon's voters but its writer (``confirm``) and then more than a
    # quorum of seats have built on it with a ``ready`` record; nobody at all where a voter
    # forfeited first (``KeyShareRules.not_ready``); ``ready``: who wrote one.
    settling: bool = False
    confirm: tuple[int, ...] = ()
    ready: tuple[int, ...] = ()


class Dealing(Protocol):
    """The sub-protocol state that deals every seat's key share and what is hidden under them
    (``role_deal.RoleDeal``, ``deck_ops.DeckOps``), as ``KeyShareRules`` asks it."""

    @property
    def key_shares(self) -> tuple[Point, ...]: ...
    @property
    def dealt(self) -> bool:
        """Whether a seat may hold a secret of it: a forfeit from then on leaves a reveal."""
        ...

    def seen_by(self, seat: int) -> str | None:
        """What ``seat`` has seen that it could walk away from ("its role"), or None."""
        ...


K = TypeVar("K", bound=KeyShareState)
REVEAL_BODY = body(secret=Encoded("key share secret"))
READY = "ready"  # a record that opens nothing: its seat built on the forfeit before it


class KeyShareRules(Rules[K]):
    """Rules of a game whose every hidden thing opens with the seats' key shares (The
    Resistance, Shady Agents, SpyNet): the kit writes the final reveal and the forfeits.

    Play ends in ``act`` ``reveal`` (the game's ``after`` says when); then every seat that has
    not forfeited writes ``reveal``, its key share secret, in seat order, checked against its
    public share at once (a false one is a ``BadOpening``). Once the last is in, the game's
    ``audit`` judges what the opened secrets prove and the act is ``done``: ``next`` is the
    ``Over`` of the game's ``natural`` result, the ``violations`` as cheats and the
    ``unjudged``. A forfeit stops play: before anything is dealt (``dealt``: still in act
    ``setup`` and the ``Dealing`` has dealt nothing) nobody has a secret to open and the game
    is done; afterwards the others reveal (``engines.table``, "What a forfeiter owes"). Each
    seat's public key share and what a seat has seen (``seen_secret``) are the ``Dealing``'s
    too. The game gives ``play`` (what play needs), ``dealing`` (where its state keeps the
    ``Dealing``), ``audit`` and ``natural``; ``opened`` reads what one secret opens as it
    arrives.
    """

    final_reveal = ("reveal",)
    confirming = (READY,)

    def __init__(self, table: Mapping[str, Move[K]]) -> None:
        if REVEAL in table:
            raise ValueError("record kind 'reveal' is the kit's")
        reveal: Move[K] = Move(REVEAL, REVEAL_BODY, self.apply_reveal, KeyShareSeat.build_reveal)
        ready: Move[K] = Move(READY, body(), self.apply_ready, KeyShareSeat.build_ready)
        super().__init__({**table, REVEAL: reveal, READY: ready})

    def seats_of(self, state: K) -> int:
        return len(state.secrets)

    # --- what the game declares -----------------------------------------------------------

    def play(self, state: K) -> GameNeed:
        raise NotImplementedError

    def dealing(self, state: K) -> Dealing:
        """The sub-protocol state that dealt the key shares (the role deal, the deck)."""
        raise NotImplementedError

    def audit(self, state: K) -> K:
        """What the opened secrets prove, once every seat still playing has opened its own."""
        raise NotImplementedError

    def natural(self, state: K) -> Result | None:
        raise NotImplementedError

    def opened(self, state: K, seat: int, secret: Scalar) -> K:
        return state

    # --- the kit's part ---------------------------------------------------------------------

    def key_share(self, state: K, seat: int) -> Point:
        return self.dealing(state).key_shares[seat]

    def dealt(self, state: K) -> bool:
        """Whether a seat may hold a secret now: a forfeit then leaves a reveal."""
        return state.act != SETUP or self.dealing(state).dealt

    def seen_secret(self, state: K, seat: int) -> str | None:
        return self.dealing(state).seen_by(seat)

    def next(self, state: K) -> GameNeed:
        if state.act == DONE:
            return self.over(state)
        if state.act == REVEAL:
            waiting = self.not_ready(state)
            if waiting:
                return Turn(waiting[0], (READY,))
            return Turn(self.still_to_reveal(state)[0], (REVEAL,))
        return self.play(state)

    def not_ready(self, state: K) -> tuple[int, ...]:
        """Who must still build on an abandon proven in play before anyone opens a secret, in
        order (``engines.table``, "Nothing opens on an abandon in play before its voters
        built on it"): its voters but its writer first, every one of them however many seats
        readied (red team 24: at ten seats, six of seven voters were more than a quorum, and
        the seventh, never asked, built on the accused's record once the key shares opened:
        its vote died and the accused's record took play back), then every other seat left in
        seat order, until the abandon is settled (``_built``: more than a quorum of seats wrote
        one, so a quorum besides its writer, or every seat but the accused did). Nobody where
        a voter forfeited first (its vote could still die) or the seats left cannot build that
        (``still_to_reveal`` is then empty: the forfeit decides, every secret closed)."""
        if not state.settling or self._voter_lost(state):
            return ()
        order = self._reveal_order(state)
        ready = set(state.ready)
        waiting = tuple(seat for seat in state.confirm if seat in order and seat not in ready)
        if waiting:
            return waiting
        if self._built(state):
            return ()
        return tuple(seat for seat in order if seat not in ready)

    def _built(self, state: K) -> bool:
        """Whether enough seats built on the abandon for the first secret to open: every voter
        but its writer (a vote whose voter built on the abandon never dies, rule 2 of
        ``p2p.protocol``), and more than ``quorum(n)`` seats (a quorum besides its writer,
        which may be one of them: the abandon is settled, rule 1), or every seat but the
        accused (at three seats there is no such quorum; nobody is left who has not chosen the
        abandon)."""
        ready = set(state.ready)
        if any(seat not in ready for seat in state.confirm):
            return False
        built = len(ready)
        n = len(state.secrets)
        return built > quorum(n) or built >= n - 1

    def _voter_lost(self, state: K) -> bool:
        gone = set(state.forfeits) | set(state.held)
        return any(seat in gone and seat not in state.ready for seat in state.confirm)

    def _reveal_order(self, state: K) -> tuple[int, ...]:
        return still_to_reveal(len(state.secrets), state.forfeits + state.held, state.revealed)

    def still_to_reveal(self, state: K) -> tuple[int, ...]:
        """Who opens a key share, in seat order: every seat but the forfeiters, those that
        opened theirs and those held (``TableSide.held``: every seat, after a claim made in
        play); nobody, where an abandon proven in play is not built on enough (``not_ready``)
        and can no longer be: a voter forfeited before its ``ready``, or too few seats are
        left. The forfeit decides, every secret closed."""
        order = self._reveal_order(state)
        if state.settling and not self._built(state) and not self.not_ready(state):
            return ()
        return order

    def over(self, state: K) -> Over:
        cheats = tuple(cheat.forfeit() for cheat in state.violations)
        return Over(self.natural(state), cheats, state.unjudged)

    def forfeit(self, state: K, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (), confirm: tuple[int, ...] = ()) -> K:
        forfeits, held = state.with_forfeit(seat, held)
        in_play = state.act == PLAY or (state.act == SETUP and self.dealt(state))
        if in_play and (confirm or reason == FRAUD):
            # An abandon proven in play, or a fraud record written in play (an interrupt, which
            # outranks the record of the seat named at its place only while no quorum built
            # on that one: the fraud too must be settled before a secret opens on it, red
            # team 24; no voter to ask first, the seats left ready until more than a quorum
            # did).
            state = evolve(state, settling=True, confirm=confirm)
        state = evolve(state, forfeits=forfeits, held=held)
        if state.act == DONE:
            return state
        if not self.dealt(state):
            return evolve(state, act=DONE)
        return self.finish(evolve(state, act=REVEAL))

    def apply_ready(self, state: K, record: Record, body: Body) -> K:
        # The last ready of a stage that can no longer settle its forfeit (a seat that was no
        # voter forfeited during it, and the seats left are too few) leaves nobody to open:
        # the game ends there, every secret closed (red team 25: without ``finish`` the act
        # stayed ``reveal`` and ``next`` asked a turn of nobody, IndexError in every engine).
        return self.finish(evolve(state, ready=state.ready + (record.seat,)))

    def apply_reveal(self, state: K, record: Record, body: Body) -> K:
        seat = record.seat
        secret = Scalar.decode(body["secret"])
        if not elgamal.opened_share_matches(secret, self.key_share(state, seat)):
            raise BadOpening(seat, record.seq, "the secret does not match the public key share")
        secrets = list(state.secrets)
        secrets[seat] = secret
        state = self.opened(state, seat, secret)
        state = evolve(state, secrets=tuple(secrets), revealed=state.revealed + (seat,))
        return self.finish(state)

    def finish(self, state: K) -> K:
        """The reveal's end, once nobody is left to open a secret: the audit, and ``done``."""
        if self.still_to_reveal(state):
            return state
        return evolve(self.audit(state), act=DONE)


class KeyShareSeat(GameSeat[S, V]):
    """A seat whose secret is one key share (``KeyShareRules``), derived from its master secret,
    kept until the final reveal, where it is the whole ``reveal`` record."""

    def __init__(self, context: SeatContext, rules: Rules[S]) -> None:
        super().__init__(context, rules)
        self.key = Scalar.random(SeededEntropy(context.secret("key-share")))
        self.public = Point.base_mul(self.key)

    def kept_secrets(self) -> tuple[bytes, ...]:
        return (self.key.encode(),)

    def build_reveal(self, state: S, b: Build) -> Body:
        return {"secret": self.key.encode()}

    def build_ready(self, state: S, b: Build) -> Body:
        return {}
