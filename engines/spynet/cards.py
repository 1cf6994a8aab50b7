"""The 84 cards of SpyNet as data (rules/spynet.md §2, effects §8, conditions §2.5).

Theory of operation
-------------------
Every card is one frozen ``Card``, looked up by its printed id (``A01`` … ``S08``) in ``CARDS``.
The ids are what records and tableaux carry; everything else is read from here, so no other
module repeats a number of the card list.

* ``kind`` says which of §2.2's rows the card is on: a plain, special or mercenary agent, a
  mission, funding or a situation.
* ``branches`` are the branches the card belongs to (§2.4): one for plain and special agents
  and single-branch missions, two for the ``pair`` missions, all four for the purple cards
  (mercenaries, M31, M32), none for funding and situations.
* ``power`` is an agent's printed power, ``value`` a funding card's value, ``stars`` a
  mission's stars; each is 0 on the other kinds.
* ``condition`` is a mission's end-game condition (§2.5), ``effect`` a special agent's effect
  (§8), ``text`` a situation's global rule (§2.3, §10).

An ``Effect`` is the whole of a special agent's line of §2.3 and §13 as data: its verb, whether
it costs a special discard, which opposing agents it may take (any stack or only one, a fixed
power threshold, the discarded card's printed power, or none), and the deploy counters it grants.
Which agents meet those limits on a real table is computed elsewhere from this data.

``DECK`` is the 76 cards that are shuffled (list order), ``SITUATIONS`` the 8 that never are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from spycraft.engines.spynet.errors import UnknownCard


class Branch(StrEnum):
    """The four branches (§2.1), in the order of every tableau's stacks and mission piles."""

    INT = "INT"
    OPS = "OPS"
    TEC = "TEC"
    SIG = "SIG"

    @property
    def full_name(self) -> str:
        return _BRANCH_NAMES[self]

    @property
    def colour(self) -> str:
        return _BRANCH_COLOURS[self]


_BRANCH_NAMES = {
    Branch.INT: "Intelligence",
    Branch.OPS: "Operations",
    Branch.TEC: "Technology",
    Branch.SIG: "Signals",
}
_BRANCH_COLOURS = {
    Branch.INT: "yellow",
    Branch.OPS: "red",
    Branch.TEC: "green",
    Branch.SIG: "blue",
}

BRANCHES: tuple[Branch, ...] = tuple(Branch)
PURPLE = "purple"
"""The frame colour of the cards that belong to all four branches."""


class Kind(StrEnum):
    """The rows of §2.2."""

    AGENT = "agent"
    SPECIAL_AGENT = "special agent"
    MERCENARY = "mercenary"
    MISSION = "mission"
    FUNDING = "funding"
    SITUATION = "situation"


AGENT_KINDS = frozenset({Kind.AGENT, Kind.SPECIAL_AGENT, Kind.MERCENARY})


class Condition(StrEnum):
    """End-game conditions of missions (§2.5), evaluated for the mission's owner."""

    DOM = "dom"
    NET = "net"
    DEEP = "deep"
    FUNDS = "funds"
    CELL = "cell"
    PAIR = "pair"
    GRAND = "grand"


class Verb(StrEnum):
    """What a special agent's effect does (§8)."""

    REMOVE = "remove"
    FLIP = "flip"
    ADDITIONAL_AGENTS = "additional agents"


@dataclass(frozen=True)
class Effect:
    """One special agent's effect (§2.3, §8, §13).

    A targeted effect (remove, flip) takes one opposing agent: the top agent of one of that
    opponent's stacks, or only of its ``stack`` when one is named (A27); S08 widens "top agent"
    to any agent. Its power must be at most ``max_power`` when that is set, at most the printed
    power of the specially discarded card when ``threshold_from_discard`` is set, and is not
    limited otherwise. ``special_discard`` means the decision also names an agent from the hand
    to discard first. ``full`` and ``bare`` are the deploy counters the effect grants (§7).
    """

    id: str
    verb: Verb
    special_discard: bool = False
    max_power: int | None = None
    threshold_from_discard: bool = False
    stack: Branch | None = None
    full: int = 0
    bare: int = 0

    @property
    def targeted(self) -> bool:
        """A targeted effect is decided by the record right after its agent (§7.1, §8)."""
        return self.verb is not Verb.ADDITIONAL_AGENTS


MOLE_HUNT = Effect("mole_hunt", Verb.REMOVE, max_power=3)
HONEY_TRAP = Effect("honey_trap", Verb.FLIP, special_discard=True, threshold_from_discard=True)
WETWORK = Effect("wetwork", Verb.REMOVE, special_discard=True, threshold_from_discard=True)
EXTRA_FUNDED_AGENT = Effect("extra_funded_agent", Verb.ADDITIONAL_AGENTS, full=1)
BLACKMAIL = Effect("blackmail", Verb.FLIP, max_power=3)
CODEBREAK = Effect("codebreak", Verb.REMOVE, stack=Branch.SIG)
NETWORK = Effect("network", Verb.ADDITIONAL_AGENTS, bare=2)


@dataclass(frozen=True)
class Card:
    """One printed card. See the module docstring for the meaning of each field."""

    id: str
    kind: Kind
    name: str
    branches: tuple[Branch, ...] = ()
    power: int = 0
    value: int = 0
    stars: int = 0
    condition: Condition | None = None
    effect: Effect | None = None
    text: str = ""

    @property
    def is_agent(self) -> bool:
        return self.kind in AGENT_KINDS

    @property
    def purple(self) -> bool:
        """A purple frame: the card belongs to all four branches (§2.2)."""
        return self.branches == BRANCHES

    @property
    def colours(self) -> tuple[str, ...]:
        """The card's colour(s): purple, or the colour of each of its branches."""
        if self.purple:
            return (PURPLE,)
        return tuple(b.colour for b in self.branches)

    def belongs_to(self, branch: Branch) -> bool:
        return branch in self.branches


def _agent(id: str, name: str, branch: Branch, power: int) -> Card:
    return Card(id, Kind.AGENT, name, (branch,), power=power)


def _special(id: str, name: str, branch: Branch, power: int, effect: Effect) -> Card:
    return Card(id, Kind.SPECIAL_AGENT, name, (branch,), power=power, effect=effect)


def _mercenary(id: str, name: str, power: int) -> Card:
    return Card(id, Kind.MERCENARY, name, BRANCHES, power=power)


def _mission(
    id: str,
    name: str,
    branches: tuple[Branch, ...],
    stars: int,
    condition: Condition | None = None,
) -> Card:
    return Card(id, Kind.MISSION, name, branches, stars=stars, condition=condition)


def _funding(id: str, name: str, value: int) -> Card:
    return Card(id, Kind.FUNDING, name, value=value)


def _situation(id: str, name: str, text: str) -> Card:
    return Card(id, Kind.SITUATION, name, text=text)


INT, OPS, TEC, SIG = BRANCHES

_LIST: tuple[Card, ...] = (
    _agent("A01", "Walk-in", INT, 1),
    _agent("A02", "Analyst", INT, 2),
    _agent("A03", "Case Officer", INT, 3),
    _agent("A04", "Resident", INT, 4),
    _agent("A05", "Spymaster", INT, 5),
    _agent("A06", "Lookout", OPS, 1),
    _agent("A07", "Driver", OPS, 2),
    _agent("A08", "Infiltrator", OPS, 3),
    _agent("A09", "Commando", OPS, 4),
    _agent("A10", "Ghost", OPS, 5),
    _agent("A11", "Technician", TEC, 1),
    _agent("A12", "Locksmith", TEC, 2),
    _agent("A13", "Forger", TEC, 3),
    _agent("A14", "Engineer", TEC, 4),
    _agent("A15", "Inventor", TEC, 5),
    _agent("A16", "Radio Operator", SIG, 1),
    _agent("A17", "Cipher Clerk", SIG, 2),
    _agent("A18", "Interceptor", SIG, 3),
    _agent("A19", "Cryptanalyst", SIG, 4),
    _agent("A20", "Signals Chief", SIG, 5),
    _special("A21", "Mole Hunter", INT, 2, MOLE_HUNT),
    _special("A22", "Honey Trap", INT, 1, HONEY_TRAP),
    _special("A23", "Wetwork Team", OPS, 1, WETWORK),
    _special("A24", "Station Chief", OPS, 2, EXTRA_FUNDED_AGENT),
    _special("A25", "Quartermaster", TEC, 2, EXTRA_FUNDED_AGENT),
    _special("A26", "Blackmailer", TEC, 1, BLACKMAIL),
    _special("A27", "Codebreaker", SIG, 2, CODEBREAK),
    _special("A28", "Network Builder", SIG, 1, NETWORK),
    _mercenary("A29", "Freelancer", 1),
    _mercenary("A30", "Smuggler", 1),
    _mercenary("A31", "Fixer", 2),
    _mercenary("A32", "Soldier of Fortune", 2),
    _mercenary("A33", "Contractor", 3),
    _mercenary("A34", "Ronin", 3),
    _mission("M01", "Dead Drop", (INT,), 1),
    _mission("M02", "Informant", (INT,), 1),
    _mission("M03", "Asset Recruitment", (INT,), 2),
    _mission("M04", "Debriefing", (INT,), 2),
    _mission("M05", "Intelligence Supremacy", (INT,), 3, Condition.DOM),
    _mission("M06", "Web of Informants", (INT,), 3, Condition.NET),
    _mission("M07", "Extraction", (OPS,), 1),
    _mission("M08", "Surveillance", (OPS,), 1),
    _mission("M09", "Safe Cracking", (OPS,), 2),
    _mission("M10", "Border Crossing", (OPS,), 2),
    _mission("M11", "Operations Supremacy", (OPS,), 3, Condition.DOM),
    _mission("M12", "Deep Cover", (OPS,), 3, Condition.DEEP),
    _mission("M13", "Microfilm", (TEC,), 1),
    _mission("M14", "Bug Sweep", (TEC,), 1),
    _mission("M15", "Prototype Theft", (TEC,), 2),
    _mission("M16", "Satellite Photos", (TEC,), 2),
    _mission("M17", "Technology Supremacy", (TEC,), 3, Condition.DOM),
    _mission("M18", "Off the Books", (TEC,), 3, Condition.FUNDS),
    _mission("M19", "Wiretap", (SIG,), 1),
    _mission("M20", "Numbers Station", (SIG,), 1),
    _mission("M21", "Codebook", (SIG,), 2),
    _mission("M22", "Intercept", (SIG,), 2),
    _mission("M23", "Signals Supremacy", (SIG,), 3, Condition.DOM),
    _mission("M24", "Traffic Analysis", (SIG,), 3, Condition.CELL),
    _mission("M25", "Defection", (INT, OPS), 2, Condition.PAIR),
    _mission("M26", "Cipher Machine", (INT, TEC), 2, Condition.PAIR),
    _mission("M27", "Counterespionage", (INT, SIG), 2, Condition.PAIR),
    _mission("M28", "Sabotage", (OPS, TEC), 2, Condition.PAIR),
    _mission("M29", "Ambush", (OPS, SIG), 2, Condition.PAIR),
    _mission("M30", "Satellite Link", (TEC, SIG), 2, Condition.PAIR),
    _mission("M31", "Safehouse", BRANCHES, 1),
    _mission("M32", "Grand Game", BRANCHES, 4, Condition.GRAND),
    _funding("F01", "Petty Cash", 1),
    _funding("F02", "Petty Cash", 1),
    _funding("F03", "Petty Cash", 1),
    _funding("F04", "Petty Cash", 1),
    _funding("F05", "Slush Fund", 2),
    _funding("F06", "Slush Fund", 2),
    _funding("F07", "Slush Fund", 2),
    _funding("F08", "Swiss Account", 3),
    _funding("F09", "Swiss Account", 3),
    _funding("F10", "Swiss Account", 3),
    _situation("S01", "Technology Race", "Each TEC agent has +1 power (mercenaries excluded)"),
    _situation("S02", "Austerity", "Each funding card adds exactly 1 power, whatever its value"),
    _situation("S03", "Open Secrets", "Missions are played face up and stay face up"),
    _situation(
        "S04",
        "Cold Standoff",
        "You may play a mission in branch b if your power there is > 0 and no opponent's is "
        "higher (ties allowed). End conditions still need strict dominance",
    ),
    _situation("S05", "Mercenary Market", "Each mercenary agent has +1 power"),
    _situation(
        "S06",
        "Hiring Spree",
        "A recruit that reaches the deck draws 2 cards instead of 1 (the second only if the "
        "deck still has one)",
    ),
    _situation(
        "S07",
        "Paper Trail",
        "At the end of each of your turns, if you hold more than 6 cards, discard face up "
        "cards of your choice down to 6",
    ),
    _situation(
        "S08",
        "Deep Infiltration",
        "Remove and flip effects may target any opposing agent, not only a top agent",
    ),
)

CARDS: Mapping[str, Card] = MappingProxyType({card.id: card for card in _LIST})
"""Every card by id, in the order of §2.3."""

DECK: tuple[str, ...] = tuple(card.id for card in _LIST if card.kind is not Kind.SITUATION)
"""The 76 cards that are shuffled into the deck (§4.2), in list order."""

SITUATIONS: tuple[str, ...] = tuple(card.id for card in _LIST if card.kind is Kind.SITUATION)
"""The 8 situation cards, which never enter the deck."""

TECHNOLOGY_RACE = "S01"
AUSTERITY = "S02"
OPEN_SECRETS = "S03"
COLD_STANDOFF = "S04"
MERCENARY_MARKET = "S05"
HIRING_SPREE = "S06"
PAPER_TRAIL = "S07"
DEEP_INFILTRATION = "S08"

PAPER_TRAIL_HAND_LIMIT = 6
"""S07: the most cards a seat may hold at the end of its turn."""


def card(card_id: str) -> Card:
    """The card with this id; ``UnknownCard`` for an id that is not in §2.3."""
    try:
        return CARDS[card_id]
    except (KeyError, TypeError):
        raise UnknownCard(card_id) from None
