"""The interrogation deck of Shady Agents as data, judged on a snapshot (rules §5-§6).

Theory of operation
-------------------
An interrogation is judged on a ``Snapshot``: the table right after the caller drew its card
(§5 step 2). It holds exactly the facts the cards may talk about: the player count, the first
player, the caller, every round-1 Move made so far (giver, receiver, kind) and every discard
(seat, kind). Round 1 is the only round with interrogations, so nothing else has happened yet;
roles are deliberately absent, because no card asks about a team (§5, "Why the questions look
like this"). ``Snapshot`` refuses any value that no legal round 1 could produce.

For one answerer A, ``Snapshot.facts(A)`` derives the notation of §6 (``rec``, k, nM, nB,
``givers``, ``from(X)``, ``gave``, ``to``, ``disc``, ``hold``, heldM, heldB, the seat ranges
between A and the caller). A ``Card`` carries its id, its question as read aloud, its answer
form, the eligibility and truth columns as the rules print them, and three functions of the
facts: ``eligible`` (public facts only: who gave to whom, who discarded, how many received),
``options`` (the set O) and ``true_answers`` (the set T).

Hidden kinds: a snapshot built from the public view has ``kind=None`` on every gift and
discard. Eligibility and the option set never read a kind, so everybody computes them alike;
the true set reads only kinds the answerer knows (the tools it received, gave and discarded),
so the answerer and the final reveal can compute it, nobody else. ``masked`` gives the snapshot
as one seat (or the public) knows it.

Answers are ``"yes"``/``"no"`` (form YN), integers (N and S) and seat numbers or ``"none"``
(form P). ``check_answer`` is the public check when an answer is made (the answerer is
eligible, the answer is in O); ``audit_answer`` is the final reveal's check with the answerer's
team (a Law-abiding answer in T, a Corrupt one in O \\ T).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from spycraft.engines.errors import Illegal, Violation
from spycraft.engines.shady_agents.components import (
    BULLET,
    LAW_ABIDING,
    MEDKIT,
    TOOLS,
    Discard,
    Gift,
    Team,
    Tool,
    check_players,
    dist,
    left,
    right,
    turn,
)

Answer = int | str
Form = Literal["YN", "N", "S", "P"]

YES = "yes"
NO = "no"
NONE = "none"
YES_NO: tuple[Answer, ...] = (YES, NO)


class ImpossibleSnapshot(ValueError):
    """A snapshot no legal round 1 can produce: a bug in whoever built it, never a peer's."""


@dataclass(frozen=True)
class Snapshot:
    """The table right after the caller's draw (§5 step 2).

    ``gifts`` are the round-1 Moves in the order they were made, ``discards`` the discards in
    the order they were made (the caller's own discard last, when the caller is not the first
    player). A kind is ``None`` where the builder does not know it.
    """

    players: int
    first: int
    caller: int
    gifts: tuple[Gift, ...]
    discards: tuple[Discard, ...]

    def __post_init__(self) -> None:
        try:
            check_players(self.players)
        except ValueError as exc:
            raise ImpossibleSnapshot(str(exc)) from exc
        n = self.players
        for name, seat in (("first player", self.first), ("caller", self.caller)):
            if type(seat) is not int or not 0 <= seat < n:
                raise ImpossibleSnapshot(f"the {name} {seat!r} is not a seat")
        before = {s for s in range(n) if self.turn(s) < self.turn(self.caller)}
        givers = [g.giver for g in self.gifts]
        discarders = [d.seat for d in self.discards]
        for gift in self.gifts:
            if not (0 <= gift.receiver < n and gift.giver != gift.receiver):
                raise ImpossibleSnapshot(f"seat {gift.giver} cannot give to {gift.receiver}")
            if gift.kind not in (None, *TOOLS):
                raise ImpossibleSnapshot(f"no tool is called {gift.kind!r}")
        for discard in self.discards:
            if discard.kind not in (None, *TOOLS):
                raise ImpossibleSnapshot(f"no tool is called {discard.kind!r}")
        if givers != sorted(givers, key=self.turn) or discarders != sorted(
            discarders, key=self.turn
        ):
            raise ImpossibleSnapshot("round-1 actions out of turn order")
        acted = givers + discarders
        if len(set(acted)) != len(acted):
            raise ImpossibleSnapshot("a seat acted twice in round 1")
        if self.first in discarders:
            raise ImpossibleSnapshot("the first player never discards (§3)")
        expected = (before | {self.caller}) - {self.first}
        if self.first in givers:
            expected.add(self.first)
        if set(acted) != expected:
            raise ImpossibleSnapshot(
                f"round 1 up to seat {self.caller}'s draw needs actions by {sorted(expected)}, "
                f"not {sorted(acted)}"
            )
        if self.caller in givers:
            raise ImpossibleSnapshot("the caller's turn is its interrogation, not a Move")

    def turn(self, seat: int) -> int:
        return turn(self.players, self.first, seat)

    def answer_order(self) -> tuple[int, ...]:
        """c+1, c+2, ..., c+n-1: the caller does not answer (§5 step 3)."""
        return tuple((self.caller + j) % self.players for j in range(1, self.players))

    def facts(self, seat: int) -> Facts:
        if not 0 <= seat < self.players:
            raise ImpossibleSnapshot(f"seat {seat} is not at this table")
        return Facts(self, seat)

    def masked(self, viewer: int | None) -> Snapshot:
        """The snapshot as ``viewer`` knows it (``None``: as everyone knows it, §8)."""

        def gift(g: Gift) -> Gift:
            seen = viewer is not None and viewer in (g.giver, g.receiver)
            return g if seen else Gift(g.giver, g.receiver, None)

        def discard(d: Discard) -> Discard:
            return d if d.seat == viewer else Discard(d.seat, None)

        return Snapshot(
            self.players,
            self.first,
            self.caller,
            tuple(gift(g) for g in self.gifts),
            tuple(discard(d) for d in self.discards),
        )


@dataclass(frozen=True)
class Facts:
    """The notation of §6 for answerer ``seat`` at a snapshot.

    Public: ``k``, ``givers``, ``moved`` (MV), ``discarded`` (PD), ``acted`` (H1), ``to`` and
    the seat geometry. Reading a kind (``n_medkits``, ``gave``, ``hold``, ...) raises
    ``HiddenKind`` when the snapshot does not know it.
    """

    snapshot: Snapshot
    seat: int

    @cached_property
    def rec(self) -> tuple[Gift, ...]:
        """The tools A has received, oldest first."""
        return tuple(g for g in self.snapshot.gifts if g.receiver == self.seat)

    @cached_property
    def move(self) -> Gift | None:
        """A's round-1 Move, if it made one."""
        return next((g for g in self.snapshot.gifts if g.giver == self.seat), None)

    @cached_property
    def discard(self) -> Discard | None:
        return next((d for d in self.snapshot.discards if d.seat == self.seat), None)

    # Public facts.

    @property
    def players(self) -> int:
        return self.snapshot.players

    @property
    def caller(self) -> int:
        return self.snapshot.caller

    @property
    def first_player(self) -> int:
        return self.snapshot.first

    @property
    def k(self) -> int:
        return len(self.rec)

    @property
    def givers(self) -> tuple[int, ...]:
        """The seats that gave A a tool, in seat order."""
        return tuple(sorted(g.giver for g in self.rec))

    @property
    def moved(self) -> bool:
        """MV: A made a Move in round 1."""
        return self.move is not None

    @property
    def discarded(self) -> bool:
        """PD: A discarded a tool to call an interrogation."""
        return self.discard is not None

    @property
    def acted(self) -> bool:
        """H1: A has acted and holds exactly one tool."""
        return self.moved or self.discarded

    @property
    def to(self) -> int:
        """The receiver of A's Move (only when MV)."""
        if self.move is None:
            raise ImpossibleSnapshot(f"seat {self.seat} made no Move")
        return self.move.receiver

    @property
    def left(self) -> int:
        return left(self.players, self.seat)

    @property
    def right(self) -> int:
        return right(self.players, self.seat)

    @property
    def neighbours(self) -> tuple[int, int]:
        return (self.left, self.right)

    def dist(self, other: int) -> int:
        return dist(self.players, self.seat, other)

    def turn(self, seat: int) -> int:
        return self.snapshot.turn(seat)

    @property
    def between_caller_and_me(self) -> tuple[int, ...]:
        """``c+1 ... A-1``: the seats c+j for 1 <= j < (A-c) mod n."""
        n, c = self.players, self.caller
        return tuple((c + j) % n for j in range(1, (self.seat - c) % n))

    @property
    def between_me_and_caller(self) -> tuple[int, ...]:
        """``A+1 ... c-1``: the seats A+j for 1 <= j < (c-A) mod n."""
        n, c = self.players, self.caller
        return tuple((self.seat + j) % n for j in range(1, (c - self.seat) % n))

    # Facts about kinds: only the answerer (or the final reveal) knows them.

    @property
    def n_medkits(self) -> int:
        """nM."""
        return sum(1 for g in self.rec if g.known() == MEDKIT)

    @property
    def n_bullets(self) -> int:
        """nB."""
        return sum(1 for g in self.rec if g.known() == BULLET)

    @property
    def first_received(self) -> Tool:
        """``first``: the kind of rec[0]."""
        return self.rec[0].known()

    @property
    def last_received(self) -> Tool:
        """``last``: the kind of rec[k-1]."""
        return self.rec[-1].known()

    def kind_from(self, giver: int) -> Tool:
        """``from(X)``: the kind X gave A."""
        return next(g for g in self.rec if g.giver == giver).known()

    @property
    def gave(self) -> Tool:
        if self.move is None:
            raise ImpossibleSnapshot(f"seat {self.seat} made no Move")
        return self.move.known()

    @property
    def disc(self) -> Tool:
        if self.discard is None:
            raise ImpossibleSnapshot(f"seat {self.seat} discarded nothing")
        return self.discard.known()

    @property
    def held(self) -> tuple[Tool, ...]:
        """The kinds A holds: one of each before it acts, the other one after (§1)."""
        if self.move is not None:
            return tuple(t for t in TOOLS if t != self.move.known())
        if self.discard is not None:
            return tuple(t for t in TOOLS if t != self.discard.known())
        return TOOLS

    @property
    def hold(self) -> Tool:
        """The kind of A's single tool (only when H1)."""
        if not self.acted:
            raise ImpossibleSnapshot(f"seat {self.seat} still holds both tools")
        (tool,) = self.held
        return tool


@dataclass(frozen=True)
class Card:
    """One interrogation card: its printed columns, then the functions that judge it."""

    id: str
    question: str
    form: Form
    who: str
    true_when: str
    eligible: Callable[[Facts], bool] = field(compare=False, repr=False)
    options: Callable[[Facts], tuple[Answer, ...]] = field(compare=False, repr=False)
    true_answers: Callable[[Facts], tuple[Answer, ...]] = field(compare=False, repr=False)


def _yn(condition: Callable[[Facts], bool]) -> Callable[[Facts], tuple[Answer, ...]]:
    return lambda a: (YES,) if condition(a) else (NO,)


def _yes_no(_: Facts) -> tuple[Answer, ...]:
    return YES_NO


def _counts(a: Facts) -> tuple[Answer, ...]:
    return tuple(range(a.k + 1))


def _scores(a: Facts) -> tuple[Answer, ...]:
    return tuple(range(-a.k, a.k + 1, 2))


def _named(pool: Callable[[Facts], tuple[int, ...]]) -> Callable[[Facts], tuple[Answer, ...]]:
    return lambda a: (*sorted(pool(a)), NONE)


def _named_true(
    pool: Callable[[Facts], tuple[int, ...]], gave_it: Callable[[Facts, int], bool]
) -> Callable[[Facts], tuple[Answer, ...]]:
    def true(a: Facts) -> tuple[Answer, ...]:
        named = tuple(x for x in sorted(pool(a)) if gave_it(a, x))
        return named if named else (NONE,)

    return true


def yes_no_card(
    id: str,
    question: str,
    who: str,
    eligible: Callable[[Facts], bool],
    true_when: str,
    condition: Callable[[Facts], bool],
) -> Card:
    return Card(id, question, "YN", who, true_when, eligible, _yes_no, _yn(condition))


def _givers_where(a: Facts, among: Callable[[Facts, int], bool]) -> tuple[int, ...]:
    return tuple(x for x in a.givers if among(a, x))


def _some_gave(
    among: Callable[[Facts, int], bool], kind: Tool
) -> tuple[Callable[[Facts], bool], Callable[[Facts], bool]]:
    """Eligibility "some X in givers is ..." and truth "some such X gave <kind>"."""
    return (
        lambda a: bool(_givers_where(a, among)),
        lambda a: any(a.kind_from(x) == kind for x in _givers_where(a, among)),
    )


def _r1(a: Facts) -> bool:
    return a.k >= 1


def _r2(a: Facts) -> bool:
    return a.k >= 2


def _re(a: Facts) -> bool:
    return a.k >= 2 and a.k % 2 == 0


def _mv(a: Facts) -> bool:
    return a.moved


def _pd(a: Facts) -> bool:
    return a.discarded


def _h1(a: Facts) -> bool:
    return a.acted


def _neighbour(a: Facts, x: int) -> bool:
    return x in a.neighbours


_q14 = _some_gave(_neighbour, BULLET)
_q15 = _some_gave(lambda a, x: a.dist(x) <= 2, MEDKIT)
_q17 = _some_gave(lambda a, x: a.turn(x) > a.turn(a.seat), MEDKIT)
_q18 = _some_gave(lambda a, x: a.turn(x) < a.turn(a.seat), BULLET)
_q19 = _some_gave(lambda a, x: x in a.between_caller_and_me, MEDKIT)
_q20 = _some_gave(lambda a, x: x in a.between_me_and_caller, BULLET)


def _neighbour_givers(a: Facts) -> tuple[int, ...]:
    return tuple(x for x in a.givers if _neighbour(a, x))


def _receiver(a: Facts) -> tuple[int, ...]:
    return (a.to,)


def _givers(a: Facts) -> tuple[int, ...]:
    return a.givers


DECK: tuple[Card, ...] = (
    yes_no_card(
        "Q01",
        "Have you received at least one Medkit?",
        "R1",
        _r1,
        "nM ≥ 1",
        lambda a: a.n_medkits >= 1,
    ),
    yes_no_card(
        "Q02",
        "Have you received at least one Bullet?",
        "R1",
        _r1,
        "nB ≥ 1",
        lambda a: a.n_bullets >= 1,
    ),
    yes_no_card(
        "Q03",
        "Have you received more Medkits than Bullets?",
        "R1",
        _r1,
        "nM > nB",
        lambda a: a.n_medkits > a.n_bullets,
    ),
    yes_no_card(
        "Q04",
        "Have you received more Bullets than Medkits?",
        "R1",
        _r1,
        "nB > nM",
        lambda a: a.n_bullets > a.n_medkits,
    ),
    yes_no_card(
        "Q05",
        "Have you received exactly as many Medkits as Bullets?",
        "RE",
        _re,
        "nM = nB",
        lambda a: a.n_medkits == a.n_bullets,
    ),
    yes_no_card(
        "Q06",
        "Have you received at least two Medkits?",
        "R2",
        _r2,
        "nM ≥ 2",
        lambda a: a.n_medkits >= 2,
    ),
    yes_no_card(
        "Q07",
        "Is the number of Medkits you have received even?",
        "R1",
        _r1,
        "nM mod 2 = 0",
        lambda a: a.n_medkits % 2 == 0,
    ),
    yes_no_card(
        "Q08",
        "Was the first tool you received a Medkit?",
        "R1",
        _r1,
        "first = M",
        lambda a: a.first_received == MEDKIT,
    ),
    yes_no_card(
        "Q09",
        "Was the most recent tool you received a Bullet?",
        "R1",
        _r1,
        "last = B",
        lambda a: a.last_received == BULLET,
    ),
    yes_no_card(
        "Q10",
        "Are all the tools you have received of the same kind?",
        "R2",
        _r2,
        "nM = 0 or nB = 0",
        lambda a: a.n_medkits == 0 or a.n_bullets == 0,
    ),
    yes_no_card(
        "Q11",
        "Was the tool your left neighbour gave you a Medkit?",
        "left ∈ givers",
        lambda a: a.left in a.givers,
        "from(left) = M",
        lambda a: a.kind_from(a.left) == MEDKIT,
    ),
    yes_no_card(
        "Q12",
        "Was the tool your right neighbour gave you a Bullet?",
        "right ∈ givers",
        lambda a: a.right in a.givers,
        "from(right) = B",
        lambda a: a.kind_from(a.right) == BULLET,
    ),
    yes_no_card(
        "Q13",
        "Did your two neighbours give you different kinds of tool?",
        "left ∈ givers and right ∈ givers",
        lambda a: a.left in a.givers and a.right in a.givers,
        "from(left) ≠ from(right)",
        lambda a: a.kind_from(a.left) != a.kind_from(a.right),
    ),
    yes_no_card(
        "Q14",
        "Did a neighbour of yours give you a Bullet?",
        "givers ∩ {left, right} ≠ ∅",
        _q14[0],
        "some neighbour in givers gave B",
        _q14[1],
    ),
    yes_no_card(
        "Q15",
        "Did a player sitting within two seats of you give you a Medkit?",
        "some X in givers has dist(A,X) ≤ 2",
        _q15[0],
        "some such X gave M",
        _q15[1],
    ),
    yes_no_card(
        "Q16",
        "Did the first player give you a Medkit?",
        "f ∈ givers",
        lambda a: a.first_player in a.givers,
        "from(f) = M",
        lambda a: a.kind_from(a.first_player) == MEDKIT,
    ),
    yes_no_card(
        "Q17",
        "Did a player whose round-1 turn came after yours give you a Medkit?",
        "some X in givers has turn(X) > turn(A)",
        _q17[0],
        "some such X gave M",
        _q17[1],
    ),
    yes_no_card(
        "Q18",
        "Did a player whose round-1 turn came before yours give you a Bullet?",
        "some X in givers has turn(X) < turn(A)",
        _q18[0],
        "some such X gave B",
        _q18[1],
    ),
    yes_no_card(
        "Q19",
        "Did a player seated between the caller and you give you a Medkit?",
        "some X in givers is among seats c+1 … A−1",
        _q19[0],
        "some such X gave M",
        _q19[1],
    ),
    yes_no_card(
        "Q20",
        "Did a player seated between you and the caller give you a Bullet?",
        "some X in givers is among seats A+1 … c−1",
        _q20[0],
        "some such X gave B",
        _q20[1],
    ),
    yes_no_card("Q21", "Did you give a Medkit?", "MV", _mv, "gave = M", lambda a: a.gave == MEDKIT),
    yes_no_card(
        "Q22",
        "Did you give a Bullet to one of your neighbours?",
        "MV and to ∈ {left, right}",
        lambda a: a.moved and a.to in a.neighbours,
        "gave = B",
        lambda a: a.gave == BULLET,
    ),
    yes_no_card(
        "Q23",
        "Did you give a Medkit to a player who had not yet taken their round-1 turn?",
        "MV and turn(to) > turn(A)",
        lambda a: a.moved and a.turn(a.to) > a.turn(a.seat),
        "gave = M",
        lambda a: a.gave == MEDKIT,
    ),
    yes_no_card(
        "Q24",
        "Did you give the caller a Bullet?",
        "MV and to = c",
        lambda a: a.moved and a.to == a.caller,
        "gave = B",
        lambda a: a.gave == BULLET,
    ),
    yes_no_card(
        "Q25",
        "Is the tool you gave the same kind as the first tool you received?",
        "MV and R1",
        lambda a: a.moved and _r1(a),
        "gave = first",
        lambda a: a.gave == a.first_received,
    ),
    yes_no_card(
        "Q26",
        "Did you give a Medkit even though you have received a Bullet?",
        "MV and R1",
        lambda a: a.moved and _r1(a),
        "gave = M and nB ≥ 1",
        lambda a: a.gave == MEDKIT and a.n_bullets >= 1,
    ),
    yes_no_card(
        "Q27",
        "Did the player you gave your tool to give you the same kind of tool?",
        "MV and to ∈ givers",
        lambda a: a.moved and a.to in a.givers,
        "gave = from(to)",
        lambda a: a.gave == a.kind_from(a.to),
    ),
    yes_no_card(
        "Q28",
        "Is the tool you still hold a Medkit?",
        "H1",
        _h1,
        "hold = M",
        lambda a: a.hold == MEDKIT,
    ),
    yes_no_card(
        "Q29",
        "Is the tool you still hold the same kind as the first tool you received?",
        "H1 and R1",
        lambda a: a.acted and _r1(a),
        "hold = first",
        lambda a: a.hold == a.first_received,
    ),
    yes_no_card(
        "Q30",
        "Counting the tools you hold and the tools you have received, do you "
        "have more Medkits than Bullets?",
        "H1 or R1",
        lambda a: a.acted or _r1(a),
        "heldM + nM > heldB + nB",
        lambda a: a.held.count(MEDKIT) + a.n_medkits > a.held.count(BULLET) + a.n_bullets,
    ),
    yes_no_card(
        "Q31",
        "Did you discard a Bullet to call your interrogation?",
        "PD",
        _pd,
        "disc = B",
        lambda a: a.disc == BULLET,
    ),
    yes_no_card(
        "Q32",
        "Is the tool you discarded the same kind as the most recent tool you received?",
        "PD and R1",
        lambda a: a.discarded and _r1(a),
        "disc = last",
        lambda a: a.disc == a.last_received,
    ),
    Card(
        "Q33",
        "How many Medkits have you received?",
        "N",
        "R1",
        "{nM}",
        _r1,
        _counts,
        lambda a: (a.n_medkits,),
    ),
    Card(
        "Q34",
        "How many Bullets have you received?",
        "N",
        "R1",
        "{nB}",
        _r1,
        _counts,
        lambda a: (a.n_bullets,),
    ),
    Card(
        "Q35",
        "What is your score so far, Medkits received minus Bullets received?",
        "S",
        "R1",
        "{nM − nB}",
        _r1,
        _scores,
        lambda a: (a.n_medkits - a.n_bullets,),
    ),
    Card(
        "Q36",
        'Name a player who gave you a Medkit, or say "none".',
        "P",
        "R1",
        "the X in givers with from(X) = M; {none} if nM = 0",
        _r1,
        _named(_givers),
        _named_true(_givers, lambda a, x: a.kind_from(x) == MEDKIT),
    ),
    Card(
        "Q37",
        'Name a player who gave you a Bullet, or say "none".',
        "P",
        "R1",
        "the X in givers with from(X) = B; {none} if nB = 0",
        _r1,
        _named(_givers),
        _named_true(_givers, lambda a, x: a.kind_from(x) == BULLET),
    ),
    Card(
        "Q38",
        'Name a neighbour who gave you a Medkit, or say "none".',
        "P",
        "that set ≠ ∅",
        "those who gave M; {none} if none did",
        lambda a: bool(_neighbour_givers(a)),
        _named(_neighbour_givers),
        _named_true(_neighbour_givers, lambda a, x: a.kind_from(x) == MEDKIT),
    ),
    Card(
        "Q39",
        'Name the player you gave a Medkit to, or say "none".',
        "P",
        "MV",
        "{to} if gave = M, else {none}",
        _mv,
        _named(_receiver),
        _named_true(_receiver, lambda a, x: a.gave == MEDKIT),
    ),
    Card(
        "Q40",
        "Name a player who gave you the same kind of tool as the one you still hold, "
        'or say "none".',
        "P",
        "H1 and R1",
        "the X in givers with from(X) = hold; {none} if none",
        lambda a: a.acted and _r1(a),
        _named(_givers),
        _named_true(_givers, lambda a, x: a.kind_from(x) == a.hold),
    ),
)

CARD_IDS: tuple[str, ...] = tuple(card.id for card in DECK)


def card(card_id: object) -> Card:
    """The card with this id; a peer naming any other id gets ``Illegal``."""
    if type(card_id) is str and card_id in CARD_IDS:
        return DECK[CARD_IDS.index(card_id)]
    raise Illegal(f"no interrogation card is called {card_id!r}")


def draw(remaining: tuple[str, ...], value: int) -> tuple[Card, tuple[str, ...]]:
    """§2 step 4: ``sorted(remaining)[uniform(|remaining|)]`` and the ids left after it."""
    ordered = sorted(remaining)
    if not 0 <= value < len(ordered):
        raise ValueError(f"a draw from {len(ordered)} cards cannot be {value}")
    drawn = ordered.pop(value)
    return card(drawn), tuple(ordered)


def eligible_answerers(drawn: Card, snapshot: Snapshot) -> tuple[int, ...]:
    """The seats that must answer, in answer order; everyone else is skipped (§5 step 4)."""
    return tuple(s for s in snapshot.answer_order() if drawn.eligible(snapshot.facts(s)))


def options(drawn: Card, snapshot: Snapshot, seat: int) -> tuple[Answer, ...]:
    """The option set O for an eligible answerer."""
    return drawn.options(_eligible_facts(drawn, snapshot, seat))


def true_set(drawn: Card, snapshot: Snapshot, seat: int) -> tuple[Answer, ...]:
    """The true set T; needs the kinds the answerer knows."""
    return drawn.true_answers(_eligible_facts(drawn, snapshot, seat))


def required_answers(drawn: Card, snapshot: Snapshot, seat: int, team: Team) -> tuple[Answer, ...]:
    """What the rules let this answerer say: T if Law-abiding, O \\ T if Corrupt (§5 step 4)."""
    truth = true_set(drawn, snapshot, seat)
    if team == LAW_ABIDING:
        return truth
    return tuple(x for x in options(drawn, snapshot, seat) if x not in truth)


def _same_answer(a: object, b: Answer) -> bool:
    return type(a) is type(b) and a == b


def check_answer(drawn: Card, snapshot: Snapshot, seat: int, answer: object) -> Answer:
    """The public check when ``seat`` answers: it is eligible and ``answer`` is in O.

    Returns the answer as the card spells it; raises ``Illegal`` otherwise (``True`` is never
    the number 1 and never "yes").
    """
    if seat == snapshot.caller:
        raise Illegal(f"the caller, seat {seat}, does not answer its own interrogation")
    if not 0 <= seat < snapshot.players or not drawn.eligible(snapshot.facts(seat)):
        raise Illegal(f"seat {seat} is not eligible for {drawn.id}")
    for option in options(drawn, snapshot, seat):
        if _same_answer(answer, option):
            return option
    raise Illegal(f"{answer!r} is not an answer to {drawn.id} for seat {seat}")


def audit_answer(drawn: Card, snapshot: Snapshot, seat: int, team: Team, answer: object) -> None:
    """The final reveal's check (§7.4) on a fully known snapshot; raises ``Violation``."""
    said = check_answer(drawn, snapshot, seat, answer)
    if said not in required_answers(drawn, snapshot, seat, team):
        truth = true_set(drawn, snapshot, seat)
        rule = "tell the truth" if team == LAW_ABIDING else "lie"
        raise Violation(
            f"seat {seat} answered {said!r} to {drawn.id} (true: {list(truth)}) and had to {rule}"
        )


def _eligible_facts(drawn: Card, snapshot: Snapshot, seat: int) -> Facts:
    facts = snapshot.facts(seat)
    if seat == snapshot.caller or not drawn.eligible(facts):
        raise Illegal(f"seat {seat} is not eligible for {drawn.id}")
    return facts
