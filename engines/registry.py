"""The games spycraft plays: the one list of games; each game package exports a ``GameDefinition``.

A new game adds one line to ``_MODULES`` and nothing else outside its package: the command
line takes its options from the package's ``ABOUT`` (``about``, which imports no engine; the
engine's rules read the same ``ABOUT``), setuptools finds the package, and the conformance
suite (``tests/conformance``) tests every game listed here. ``load`` imports a game's
declaration (``definition``) and with it its engine; a game on the kit makes its definition
with ``declare``, naming each part once. A ``Definition`` is typed by its game's state and its
seat's view; ``GameDefinition`` is the same for whichever game, as the registry, the command
line and the peers hold it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from spycraft.engines.about import About, Option

if TYPE_CHECKING:  # the registry imports no engine until a game is loaded
    from spycraft.crypto.entropy import Entropy
    from spycraft.crypto.records import Record
    from spycraft.engines.agent import Agent
    from spycraft.engines.game import GameSeat, Move, Rules
    from spycraft.engines.seat import PrivateSide, SeatContext
    from spycraft.engines.table import GameRules, Table, TableState
    from spycraft.engines.viewmodel import Event, Screen

S = TypeVar("S")  # a game's state
V = TypeVar("V")  # what one seat of it knows (its seat's view)

TALK_ALWAYS = "always"
TALK_NEVER = "never"
TALK_AFTER = "lobby and after the result"
TALKS = (TALK_ALWAYS, TALK_NEVER, TALK_AFTER)
"""When a game allows table talk (``GameDefinition.talk``): at any time, never, or only before
the game starts and once its result is recorded (SpyNet's rules §11: partners must not talk)."""


@dataclass(frozen=True)
class Definition(Generic[S, V]):
    """A game as the table, the seats and every UI use it, typed by its state ``S`` and what
    one seat of it knows ``V`` (``declare`` makes it from the game's parts)."""

    name: str
    title: str
    rules: GameRules[S]
    seat: Callable[[SeatContext], PrivateSide[S, V]]
    bots: Mapping[str, Callable[[Entropy, int], Agent]]  # name -> (entropy, seat) -> agent
    # The one presentation of the game (engines.viewmodel), which the full-screen table, the
    # line mode, replay and watch all draw: (table state, seat or None for the public picture,
    # that seat's view (GameSeat.view or a hindsight entry) or None) -> Screen, and (game state
    # before or None, record, game state after) -> one history Event or None.
    screen: Callable[[TableState[S], int | None, V | S | None], Screen]
    story: Callable[[S | None, Record, S], Event | None]
    # (game states of a finished game, seat) -> what that seat knew at each (for replay --as):
    # its view, or where the transcript cannot show it, None or the public state itself
    hindsight: Callable[[Sequence[S], int], Sequence[V | S | None]]
    moves: Mapping[str, Move[S]] = field(default_factory=dict)  # kind -> its declaration
    # Record kinds whose timing could tell who decided (Confusion's answers: automatic unless
    # the spy is the Double Agent): on the LAN a person's are held to one minimum delay.
    paced: frozenset[str] = frozenset()
    talk: str = TALK_ALWAYS  # one of TALKS; enforced by p2p.chat at every peer

    def __post_init__(self) -> None:
        if self.talk not in TALKS:
            raise ValueError(f"{self.name}: talk is one of {', '.join(TALKS)}")

    def talk_open(self, finished: bool) -> bool:
        """Whether table talk is allowed at a moment of the table (``finished``: its result is
        recorded)."""
        return self.talk == TALK_ALWAYS or (self.talk == TALK_AFTER and finished)

    def table(self) -> Table[S]:
        from spycraft.engines.table import Table

        return Table(self.rules)

    @property
    def flags(self) -> tuple[Option, ...]:
        """The game's yes/no options, one command-line flag each."""
        return tuple(getattr(self.rules, "options", ()))

    def options(self, players: int | None = None, **given: object) -> dict[str, bool | str]:
        """Genesis options from keywords (``plot=True``, ``situation="S03"``; a keyword left
        None is not given), for ``players`` seats (the fewest the game is played by if None):
        ``genesis_options`` with the declared options, so they are declared once."""
        seats = self.rules.seat_counts[0] if players is None else players
        return self.genesis_options(seats, {k: v for k, v in given.items() if v is not None})

    def genesis_options(
        self, players: int, given: Mapping[str, object] | None = None
    ) -> dict[str, bool | str]:
        """Genesis options for ``players`` seats from what the player gave (option name ->
        True for a yes/no option, a choice otherwise); ValueError if not playable."""
        given = dict(given or {})
        if players not in self.rules.seat_counts:
            counts = self.rules.seat_counts
            raise ValueError(f"{self.name} is played by {counts[0]} to {counts[-1]} players")
        unknown = sorted(set(given) - {o.name for o in self.flags})
        if unknown:
            raise ValueError(f"{self.name} has no option {', '.join(unknown)}")
        options = {o.name: o.value(given.get(o.name)) for o in self.flags}
        self.rules.check_options(options, players)
        return options


GameDefinition = Definition[Any, Any]  # whichever game: each game's GAME is typed by its own
"""The definition of a game as the registry, the command line and the peers hold it, not
knowing which game it is."""


def declare(
    about: About,
    rules: Rules[S],
    seat: Callable[[SeatContext, Rules[S]], GameSeat[S, V]],
    bots: Mapping[str, Callable[[Entropy, int], Agent]],
    screen: Callable[[TableState[S], int | None, V | S | None], Screen],
    story: Callable[[S | None, Record, S], Event | None],
    hindsight: Callable[[Sequence[S], int], Sequence[V | S | None]],
    *,
    paced: frozenset[str] = frozenset(),
    talk: str = TALK_ALWAYS,
) -> Definition[S, V]:
    """A game on the kit, from its parts, each named once: its ``ABOUT`` (name, title), its
    rules (``engines.game.Rules``, whose moves are the definition's), its seat class (a
    ``GameSeat`` of these rules), its bots and its one presentation.

    Here the parts are typed by the game's state ``S`` and its seat's view ``V``: the rules,
    the seat, ``screen``, ``story`` and ``hindsight`` must agree on both, so a game wired to
    another's view or state is a type error (``mypy --strict``). ``hindsight`` gives, for each
    state, what the seat knew: its view, or where the transcript cannot show it, None or the
    public state itself; ``screen`` draws any of them."""

    def seat_of(context: SeatContext) -> GameSeat[S, V]:
        return seat(context, rules)

    return Definition(
        about.name, about.title, rules, seat_of, bots, screen, story, hindsight, rules.moves,
        paced, talk,
    )


_MODULES = {
    "spies-and-lies": "spycraft.engines.spies_and_lies",
    "resistance": "spycraft.engines.resistance",
    "shady-agents": "spycraft.engines.shady_agents",
    "confusion": "spycraft.engines.confusion",
    "spynet": "spycraft.engines.spynet",
}


def game_names() -> tuple[str, ...]:
    return tuple(_MODULES)


def option_names() -> tuple[str, ...]:
    """Every option some game declares, sorted: the command line offers one flag each."""
    return tuple(sorted({o.name for name in _MODULES for o in about(name).options}))


def about(name: str) -> About:
    """What the command line knows of a game without importing its engine (``engines.about``)."""
    if name not in _MODULES:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(_MODULES)}")
    known: About = importlib.import_module(_MODULES[name]).ABOUT
    return known


def load(name: str) -> GameDefinition:
    if name not in _MODULES:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(_MODULES)}")
    module = importlib.import_module(_MODULES[name] + ".definition")
    definition: GameDefinition = module.GAME
    return definition
