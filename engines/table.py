"""The table: the lifecycle every game shares, as a pure state machine over signed records.

Theory of operation
-------------------
A table starts from a signed genesis and advances one record at a time. At every point exactly
one seat may write the next record, and ``expect(state)`` names it with the record kinds it may
write. ``apply(state, signed)`` checks, in this order, and raises a typed error naming the seat
and the seq for the first thing that is wrong:

1. the signature: this table's id, and a COSE_Sign1 by the identity key the genesis gives the
   seat the record names (so a record that seat never signed is never blamed on it), and its
   size: at most ``MAX_EVIDENCE_BYTES`` but for a fraud record, which carries up to two records
   that stand as evidence (``crypto.records.stands_as_evidence``);
2. the chain: the next seq, ``prev`` = link hash of the previous item;
3. the turn: the seat and the kind ``expect`` named (except the two interrupts below);
4. the content: the table's own kinds here, every other kind by the game's rules.

The table owns four kinds; a game owns the rest:

* ``beacon``: when the game asks for randomness (``Draw``), every seat in seat order reveals the
  next pre-image of its hash chain (crypto.beacon); the round's seed goes to ``game.on_draw``.
* ``result``: when the game is over, the first seat that has not forfeited writes the result
  (any seat may, if that one is gone); it must equal what the engine computed, so a
  transcript's last record states its outcome. Once the outcome is fixed nobody can forfeit.
* ``fraud`` (interrupt): another seat proves that the seat expected next cheated, with signed
  evidence: a record that seat signed for this very seq that the engine rejects, or two
  different records it signed for one seq (equivocation). That seat forfeits.
* ``abandon`` (interrupt): the expected seat stalled past the timeout of a majority of the other
  seats, each of whom signed an absence vote (``engines.absence``); the record carries the votes.
  That seat forfeits. (Stalling is not provable, so one seat's claim is never enough.)

The engine never knows which seat is local: our own records pass through the same checks as
everyone else's (only the proofs and the signature our session has just made are not made a
second time: ``crypto.vouch``, which the verifiers consult, not the engine).

A game plugs in through ``GameRules``: its state is immutable, ``next`` says what it needs
(a seat's ``Turn``, a ``Draw`` of public randomness, or ``Over`` once play and the final reveal
are done), ``apply`` takes one of its records, ``on_draw`` takes a beacon seed, ``forfeit`` ends
play for a cheater or a deserter while the honest seats still open their secrets.

Forfeits and the result (one rule for every game, DESIGN "Fraud and abandonment"): the table
keeps every ``Forfeit`` (fraud proven, seat declared absent) and the game adds the violations its
final reveal proves (``Over.cheats``). ``settle`` turns them and the game's natural result into
the ``Result``, asking the game only for the side of a seat (``side_of``, None while unknown):
a cheater's side loses; an absent seat's side loses likewise, but the reason says "abandoned",
never "fraud"; seats of more than one side forfeiting (or one whose side is unknown) leave no
winner. Where the losers leave two sides or more, none of them wins either, unless play ranked
them (``Over.among``: SpyNet at three seats, where a loser's closed cards leave the score of all
three open but the two others' points are exact).
An abandon whose votes are one party's word (``absence.is_claim``: any abandon at two
seats; at a table with public teams, one whose voters are all the accused's ``public_opponents``;
where a hidden side can be a quorum, one with no more voters than that side, ``hidden_side``)
proves nothing, so it ends the game as "abandoned, claimed by seat N": no winner, no fraud.
A result that play fixed survives a forfeit in the final reveal: where the game still gives its
natural result (it needs nothing the forfeiter kept closed), nobody is proven to have cheated and
every forfeiter's side lost (or nothing left to open could change it, ``Over.fixed``), the
natural result stands and names the forfeiters, so a loser cannot turn its defeat into
"abandoned" by never opening its last secrets (``_fixed_by_play``).
A seat that walks away after seeing a secret (``seen_secret``) is named as having deserted; so
is the last seat of a beacon round that stalls once every other pre-image is in, since it alone
knows the draw (``LAST_MOVER``; docs/rulings.md says why that is all a two-seat table can do).

What a forfeiter owes (one rule for every secret of every game): nothing. A seat that has not
forfeited owes every opening the final reveal asks of it, in its own ``reveal`` record, which is
refused at once if one is missing or false (the fraud interrupt then proves it). A forfeiter
writes no more records, so its secrets stay *closed*: a closed secret is never a violation, and
neither is anything that can only be judged with it. The game judges what the opened secrets and
the public record prove (a card the deck count leaves no choice for is proven, not guessed:
``role_deal.roles_known``), and lists each act it cannot judge as an ``Unjudged`` in
``Over.unjudged``, the forfeiter's own and an honest seat's whose truth depends
on a closed secret alike; ``settle`` writes them into the result in words, so the audit says
what was not checked and why.

Nothing opens on a claim made in play (docs/rulings.md): after a claim made in play, the
accused's withheld record can still displace it until a seat outside the claiming party builds
on it (rule 3 of ``p2p.protocol``), and play would go on with whatever had been opened; a seat
outside that builds on it can still take its record back by proving its own equivocation
before a quorum built on it; and the party itself can settle the accused's record by building
on it, which rule 1 puts before rule 3 (red team 24: the accused's partner, cut off from it for
a turn timeout, took the claim and opened its key share to the party). So where the claim is
made in play (the accused's turn was not its final reveal), ``forfeit`` holds every seat
(``engines.game.TableSide.held``): nobody opens anything more, and the game ends on the claim,
which makes no side lose, every secret closed.

Nothing opens on an abandon in play before its voters built on it (docs/rulings.md, red team
20): a voter that builds on the accused's record kills its vote, and an abandon that no quorum
built on then loses to that record (rule 2 of ``p2p.protocol``), so the accused's teammate among
the voters could take play back once the others had opened their secrets. ``forfeit`` names the
voters but the writer (``confirm``), and a game of key shares asks each of them for a ``ready``
record, which opens nothing, before the first ``reveal`` (a vote whose voter built on the
abandon does not die, ``p2p.protocol``), then every other seat left until the abandon is
settled (a quorum besides its writer built on it) or every seat but the accused did: else a
seat that never held the abandon could build on the accused's record with its teammate and
settle that first (red team 21). Every voter but the writer readies, however many seats did
before it (red team 24: a voter never asked could still kill its vote). Where a voter forfeits
first, or too few seats are left, nobody opens. A fraud record written in play is settled the
same way before anything opens, with no voter to ask first (red team 24: it outranks the record
of the seat named at its place only while no quorum built on that one, and a record the
accused's teammate and an honest seat built on took play back from it once a key share opened).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar, final

from spycraft.crypto import beacon
from spycraft.crypto.errors import (
    BadSignature,
    ChainBroken,
    Equivocation,
    IllegalAction,
    MalformedRecord,
    OutOfTurn,
    RecordError,
)
from spycraft.crypto.records import (
    MAX_EVIDENCE_BYTES,
    Genesis,
    Record,
    SignedGenesis,
    SignedRecord,
    fits_as_evidence,
    parse_record,
    stands_as_evidence,
    verify_genesis,
    verify_record_signature,
)
from spycraft.engines import absence
from spycraft.engines.evolve import evolve
from spycraft.engines.schema import Body

TABLE_KINDS = ("beacon", "result", "fraud", "abandon")
# The reasons a forfeit result gives, so the audit can tell a cheat from a desertion.
FRAUD = "fraud"
ABANDONED = "abandoned"
DESERTED = "deserted"
CLAIMED = "claimed by seat"  # the detail of a two-seat abandon: "claimed by seat N"
SHARED = "shared"  # the reason of a win shared by several sides (``Result.shared``)
LAST_MOVER = "the draw"  # what the last seat of a beacon round has seen before it reveals
NOT_JUDGED = "not judged (a forfeiter's secrets stayed closed)"
INTERRUPTS = ("fraud", "abandon")


@dataclass(frozen=True)
class Turn:
    """The game waits for ``seat`` to write one record of one of ``kinds``."""

    seat: int
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Draw:
    """The game waits for a round of the randomness beacon."""

    purpose: str


@dataclass(frozen=True)
class Result:
    """How a game ended. ``winner`` is a side name, or None for a draw, no winner or a shared
    win; ``shared`` names the sides that share the win (two or more, ``winner`` None).

    ``unjudged`` repeats, for the screens, the acts the detail says were not judged (a
    forfeiter's secret being closed); the record carries them in ``detail``."""

    winner: str | None
    reason: str
    forfeits: tuple[int, ...] = ()
    evidence: tuple[int, ...] = ()
    detail: str = ""
    shared: tuple[str, ...] = ()
    unjudged: tuple[str, ...] = ()

    @property
    def winners(self) -> tuple[str, ...]:
        """Every side that won: one, several for a shared win, none."""
        return (self.winner,) if self.winner is not None else self.shared

    def to_cbor(self) -> Body:
        return {
            "winner": list(self.shared) if self.shared else self.winner,
            "reason": self.reason,
            "forfeits": list(self.forfeits),
            "evidence": list(self.evidence),
            "detail": self.detail,
        }

    def describe(self) -> str:
        if self.winner is None and self.reason == ABANDONED and self.detail.startswith(CLAIMED):
            claim = self.detail.split(";")[0]
            seats = ", ".join(map(str, self.forfeits))
            records = ", ".join(map(str, self.evidence))
            text = (
                f"abandoned, {claim}: no winner, no fraud; forfeit by seat {seats} "
                f"(declared absent at record {records})"
            )
            rest = self.detail.split("; ", 1)[1] if "; " in self.detail else ""
            return f"{text}; {rest}" if rest else text
        if self.shared:
            who = f"winners: {' and '.join(self.shared)}"
        else:
            who = "no winner" if self.winner is None else f"winner: {self.winner}"
        text = f"{who} ({self.reason})"
        if self.forfeits:
            text += f"; forfeit by seat {', '.join(map(str, self.forfeits))}"
        if self.evidence:
            text += f"; evidence: records {', '.join(map(str, self.evidence))}"
        if self.detail:
            text += f"; {self.detail}"
        return text


@dataclass(frozen=True)
class Forfeit:
    """A seat that loses by its own act: ``reason`` is FRAUD, ABANDONED or DESERTED.

    ``seq`` is the evidence: the fraud or abandon record, or the record a final reveal proved
    illegal. ``reporter`` is the seat that declared it (None when the engine found it);
    ``claimed_by``: the voters of an abandon that is only a claim (``absence.is_claim``).
    """

    seat: int
    seq: int
    reason: str
    what: str
    reporter: int | None = None
    claimed_by: tuple[int, ...] = ()

    def describe(self) -> str:
        return f"seat {self.seat} at record {self.seq}: {self.what}"


@dataclass(frozen=True)
class Unjudged:
    """A hidden act the final reveal cannot judge: ``seat``'s ``what`` in record ``seq`` needs
    ``needs``, which stayed closed with a forfeiter (module docstring, "What a forfeiter owes")."""

    seat: int
    seq: int
    what: str  # "answer", "face-down mission", ...: its plural adds an "s"
    needs: str  # "seat 3's role", "the kind of the tool seat 3 gave seat 1", ...


@dataclass(frozen=True)
class Over:
    """Play and the final reveal are done. ``natural``: the result of play (None if a forfeit
    stopped play); ``cheats``: the violations the final reveal proved; ``unjudged``: what it
    could not judge."""

    natural: Result | None
    cheats: tuple[Forfeit, ...] = ()
    unjudged: tuple[Unjudged, ...] = ()
    # Nothing the final reveal still opens can change ``natural``: every fact of play was proven
    # when it was made (Confusion), or every face a forfeiter's closed cards could have gives
    # the same result (SpyNet). A forfeit in the final reveal then only names its seat.
    fixed: bool = False
    # Where ``natural`` is None only because a forfeiter's closed secrets could change who wins:
    # the result of play between the sides a forfeit leaves (their points known), by those
    # sides. When the forfeit makes those sides' rivals lose, it decides between them
    # (``settle``): a loser who stalls at three seats leaves the two others as play ranked them.
    among: tuple[tuple[frozenset[str], Result], ...] = ()


def unjudged_words(items: Sequence[Unjudged]) -> tuple[str, ...]:
    """What was not judged, one phrase per closed secret and kind of act, in the order found:
    ``seat 2's answer at record 57 (it needs seat 3's role)``, ``the spy tags of seats 0, 1, 2
    at records 30, 31, 32 (they need seat 3's key share)``."""
    groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for item in items:
        groups.setdefault((item.what, item.needs), []).append((item.seat, item.seq))
    words = []
    for (what, needs), acts in groups.items():
        seats = sorted({seat for seat, _ in acts})
        seqs = ", ".join(str(seq) for seq in sorted({seq for _, seq in acts}))
        many = len(acts) > 1
        noun = f"{what}s" if many else what
        if len(seats) == 1:
            whose = f"seat {seats[0]}'s {noun}"
        else:
            whose = f"the {noun} of seats {', '.join(map(str, seats))}"
        where = f"at records {seqs}" if many else f"at record {seqs}"
        verb = "they need" if many else "it needs"
        words.append(f"{whose} {where} ({verb} {needs})")
    return tuple(words)


def settle(
    seats: int,
    sides: Sequence[str],
    side_of: Callable[[int], str | None],
    forfeits: Sequence[Forfeit],
    over: Over,
) -> Result:
    """The one forfeit rule (module docstring): the result from the forfeits and natural result."""
    everyone = tuple(forfeits) + over.cheats
    if not everyone:
        if over.natural is None:
            raise ValueError("play stopped with no forfeit and no natural result")
        return over.natural
    if _fixed_by_play(side_of, everyone, over):
        assert over.natural is not None
        result = replace(
            over.natural,
            forfeits=tuple(sorted({f.seat for f in everyone})),
            evidence=tuple(sorted({f.seq for f in everyone})),
            detail="; ".join([over.natural.detail] * bool(over.natural.detail)
                             + [f.describe() for f in everyone]),
        )
    else:
        result = _forfeit_result(seats, sides, side_of, everyone, over.among)
    unjudged = unjudged_words(over.unjudged)
    if not unjudged:
        return result
    detail = f"{result.detail}; {NOT_JUDGED}: " + "; ".join(unjudged)
    return replace(result, detail=detail, unjudged=unjudged)


def _fixed_by_play(
    side_of: Callable[[int], str | None], everyone: Sequence[Forfeit], over: Over
) -> bool:
    """Whether play fixed a result that the forfeits cannot change: the game still gives its
    natural result (it needs nothing the forfeiters kept closed), nobody is proven to have
    cheated, and either the game says nothing left to open could change it (``Over.fixed``) or
    every forfeiter is known to play for a side that lost. A loser who walks away in the final
    reveal (or is claimed absent there by the winner) leaves the win as play decided it, named
    as the forfeiter it is; a seat of a winning side that does so where its openings still
    count costs its side the win, by the one rule."""
    natural = over.natural
    if natural is None or any(f.reason == FRAUD for f in everyone):
        return False
    if over.fixed:
        return True
    if not natural.winners:
        return False
    lost = [side_of(f.seat) for f in everyone]
    return all(side is not None and side not in natural.winners for side in lost)


def _forfeit_result(
    seats: int,
    sides: Sequence[str],
    side_of: Callable[[int], str | None],
    everyone: Sequence[Forfeit],
    among: Sequence[tuple[frozenset[str], Result]] = (),
) -> Result:
    seat_list = tuple(sorted({f.seat for f in everyone}))
    evidence = tuple(sorted({f.seq for f in everyone}))
    detail = "; ".join(f.describe() for f in everyone)
    reasons = {f.reason for f in everyone}
    reason = FRAUD if FRAUD in reasons else DESERTED if DESERTED in reasons else ABANDONED
    # A claim (one party's word: any abandon at two seats) makes no side lose.
    losing = [f for f in everyone if not _claimants(seats, f)]
    if not losing:
        by = _claimants(seats, everyone[0])
        claim = f"{CLAIMED}{'s' if len(by) > 1 else ''} {', '.join(map(str, by))}"
        return Result(None, ABANDONED, seat_list, evidence, f"{claim}; {detail}")
    lost = [side_of(f.seat) for f in losing]
    unknown = [f.seat for f, side in zip(losing, lost) if side is None]
    if unknown:
        note = f"no side loses: the side of seat {', '.join(map(str, unknown))} is not known"
        return Result(None, reason, seat_list, evidence, f"{detail}; {note}")
    left = [side for side in sides if side not in lost]
    present = {side_of(seat) for seat in range(seats)}
    if None not in present:  # a side nobody at this table plays for (a game of 2 to 4) never wins
        left = [side for side in left if side in present]
    if len(left) > 1:  # play may have ranked the sides left, whatever the forfeiters' cards
        ranked = next((r for sides_left, r in among if sides_left == frozenset(left)), None)
        if ranked is not None:
            between = f"{detail}; between the sides left: {ranked.detail}"
            return Result(ranked.winner, reason, seat_list, evidence, between, ranked.shared)
    return Result(left[0] if len(left) == 1 else None, reason, seat_list, evidence, detail)


def _claimants(seats: int, forfeit: Forfeit) -> tuple[int, ...]:
    """Who claims ``forfeit``, if it is only a claim (an abandon by one party's votes)."""
    if forfeit.reason == FRAUD:
        return ()
    if forfeit.claimed_by or seats != 2:
        return forfeit.claimed_by
    return (forfeit.reporter if forfeit.reporter is not None else 1 - forfeit.seat,)


def still_to_reveal(seats: int, gone: Iterable[int], revealed: Iterable[int]) -> tuple[int, ...]:
    """The final reveal's order: every seat that has not forfeited (``gone``) and has not yet
    opened its secrets, in seat order (the first is the one who reveals next)."""
    skip = set(gone) | set(revealed)
    return tuple(s for s in range(seats) if s not in skip)


Need = Turn | Draw | Result
GameNeed = Turn | Draw | Over
WAITS_KEPT = 8
"""States whose ``Table.need`` and ``Table.expect`` a table keeps worked out (a peer asks about
its head and the state before it; an audit, one state after another)."""
S = TypeVar("S")


class GameRules(Protocol[S]):
    """What a game provides to the table (one module-level object per game)."""

    name: str
    seat_counts: tuple[int, ...]
    sides: tuple[str, ...]  # the teams a result can name as winner
    final_reveal: tuple[str, ...]  # the record kinds that open what was hidden until the end
    # The record kinds that open nothing and only build on a forfeit before the final reveal
    # (the kit's ``ready``): a ``final_reveal`` record of another seat after one settles it
    # (rule 1 of ``p2p.protocol``).
    confirming: tuple[str, ...]

    def check_options(self, options: Mapping[str, object], seats: int) -> None:
        """Raise ValueError naming the problem if these options are not playable."""

    def initial(self, genesis: Genesis) -> S: ...

    def next(self, state: S) -> GameNeed: ...

    def apply(self, state: S, record: Record) -> S: ...

    def on_draw(self, state: S, seed: bytes) -> S: ...

    def forfeit(self, state: S, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (), confirm: tuple[int, ...] = ()) -> S:
        """Play stops for ``seat``: it writes nothing more (it still counts in ``side_of``).
        ``held``: the seats that open nothing more because of it (where the forfeit is a claim
        made in play, one party's votes not in the final reveal: every seat; module docstring,
        "Nothing opens on a claim made in play"); ``confirm``: where it is an abandon proven in
        play, its voters but its writer, who build on it before anyone opens a secret (module
        docstring, "Nothing opens on an abandon in play before its voters built on it")."""

    def side_of(self, state: S, seat: int) -> str | None:
        """The side ``seat`` plays for, once the game has shown it (None while unknown)."""

    def seen_secret(self, state: S, seat: int) -> str | None:
        """What secret ``seat`` has seen that it could walk away from (e.g. "its role")."""

    def public_opponents(self, state: S, seat: int) -> frozenset[int]:
        """The seats everyone knows to play together against ``seat`` (SpyNet at four: the other
        team); their votes alone are a claim. Empty where sides are hidden or not one party."""

    def hidden_side(self, state: S, seat: int) -> int:
        """How many seats a side whose members are hidden may have against ``seat`` (Shady
        Agents: the longer team); votes of no more seats than that are a claim (they may all be
        that side's). 0 where no hidden side can be a quorum of the others."""


@dataclass(frozen=True)
class TableState(Generic[S]):
    genesis: Genesis
    genesis_link: bytes
    game: S
    seq: int = 0  # seq of the last item applied (0 = genesis)
    link: bytes = b""  # link hash of the last item applied
    beacon_heads: tuple[bytes, ...] = ()  # each seat's last revealed chain value
    beacon_rounds: int = 0  # rounds completed
    pending: tuple[bytes, ...] = ()  # pre-images of the round in progress, in seat order
    result: Result | None = None  # set by the result record: the table is closed
    history: tuple[tuple[int, int, str], ...] = field(default=())  # (seq, seat, kind)
    incidents: tuple[Incident, ...] = ()  # frauds proven and abandons declared
    forfeits: tuple[Forfeit, ...] = ()  # what those incidents cost their seats


def game_state(state: TableState[S] | S) -> S:
    """The game's own state, given the table's state that holds it or the game's state itself
    (a game's ``screen`` is handed the first, its ``story`` and ``hindsight`` the second). By
    type, not by attribute: a game whose state has a field called ``game`` is not unwrapped
    twice."""
    if isinstance(state, TableState):
        game: S = state.game
        return game
    return state


@dataclass(frozen=True)
class Incident:
    """A fraud proven or an abandon declared by ``reporter`` against ``seat`` at ``seq``."""

    seq: int
    reporter: int
    seat: int
    kind: str  # "fraud" or "abandon"
    what: str

    def describe(self) -> str:
        return (
            f"record {self.seq}: seat {self.reporter} reports {self.kind} by seat {self.seat}: "
            f"{self.what}"
        )


class Table(Generic[S]):
    """The table engine for one game."""

    def __init__(self, rules: GameRules[S]) -> None:
        self.rules = rules
        # What the table waits for at the last states asked about (``_waits``): a pure function
        # of an immutable state that a peer asks for several times per record (the engine's
        # turn check, the next writer to pass the record on to, whether our turn came, the
        # ticker), so it is worked out once per state. Keyed by the state's id and holding the
        # state itself, so an id names that object alone while it is kept; at most
        # ``WAITS_KEPT`` states.
        self._waits: dict[int, tuple[TableState[S], Need | None, Turn | None]] = {}

    # --- starting -------------------------------------------------------------------------

    def start(self, signed: SignedGenesis) -> TableState[S]:
        genesis = signed.genesis
        if genesis.game != self.rules.name:
            raise MalformedRecord(
                None, 0, f"genesis is for {genesis.game!r}, not {self.rules.name!r}"
            )
        if len(genesis.seats) not in self.rules.seat_counts:
            raise MalformedRecord(
                None, 0, f"{self.rules.name} is not played with {len(genesis.seats)} seats"
            )
        try:
            self.rules.check_options(genesis.options, len(genesis.seats))
        except ValueError as exc:
            raise MalformedRecord(None, 0, f"genesis options: {exc}") from None
        verify_genesis(signed)
        return TableState(
            genesis=genesis,
            genesis_link=signed.link,
            game=self.rules.initial(genesis),
            link=signed.link,
            beacon_heads=tuple(s.beacon for s in genesis.seats),
        )

    # --- who writes next ------------------------------------------------------------------

    @final  # both are read from one entry of ``_waits``: overriding one would split them
    def need(self, state: TableState[S]) -> Need | None:
        """What the game waits for, or None once the result record closed the table."""
        return self._waits_at(state)[1]

    def _waits_at(
        self, state: TableState[S]
    ) -> tuple[TableState[S], Need | None, Turn | None]:
        """(state, ``need``, ``expect``) of ``state``, worked out once while it is kept."""
        known = self._waits.get(id(state))
        if known is not None and known[0] is state:
            return known
        need = self._need(state)
        waits = (state, need, self._turn(state, need))
        if len(self._waits) >= WAITS_KEPT:
            self._waits.clear()
        self._waits[id(state)] = waits
        return waits

    def _need(self, state: TableState[S]) -> Need | None:
        if state.result is not None:
            return None
        need = self.rules.next(state.game)
        return self.settle(state, need) if isinstance(need, Over) else need

    def settle(self, state: TableState[S], over: Over) -> Result:
        def side_of(seat: int) -> str | None:
            return self.rules.side_of(state.game, seat)

        return settle(len(state.genesis.seats), self.rules.sides, side_of, state.forfeits, over)

    @final
    def expect(self, state: TableState[S]) -> Turn | None:
        """The seat that writes the next record and the kinds it may write (None once closed)."""
        return self._waits_at(state)[2]

    def _turn(self, state: TableState[S], need: Need | None) -> Turn | None:
        if need is None:
            return None
        if isinstance(need, Draw):
            return Turn(len(state.pending), ("beacon",))
        if isinstance(need, Result):
            return Turn(self.result_writer(state, need), ("result",))
        return need

    def claiming_party(self, state: TableState[S], accused: int,
                       voters: Iterable[int]) -> frozenset[int] | None:
        """For the votes of an abandon of ``accused`` at ``state``: the party whose word they
        are, or None where they are a proof (``absence.claiming_party``, with what the game
        says of the sides against the accused)."""
        game = state.game
        return absence.claiming_party(
            len(state.genesis.seats), voters, self.rules.public_opponents(game, accused),
            self.rules.hidden_side(game, accused))

    def result_writer(self, state: TableState[S], result: Result) -> int:
        for seat in range(len(state.genesis.seats)):
            if seat not in result.forfeits:
                return seat
        return 0

    # --- applying -------------------------------------------------------------------------

    def apply(self, state: TableState[S], signed: SignedRecord) -> TableState[S]:
        record = signed.record
        if record.table != state.genesis.table:
            raise ChainBroken(record.seat, record.seq, "record belongs to another table")
        seats = state.genesis.seats
        if record.seat >= len(seats):
            raise MalformedRecord(record.seat, record.seq, "no such seat at this table")
        verify_record_signature(signed, seats[record.seat].identity)
        if record.kind != "fraud" and not fits_as_evidence(signed):
            # so that any record that takes a place can be carried by a fraud record (two of them)
            raise MalformedRecord(
                record.seat, record.seq,
                f"{len(signed.raw)} bytes: a record is at most {MAX_EVIDENCE_BYTES} bytes",
            )
        self.check_link(state, record)
        turn = self.expect(state)
        if turn is None:
            raise OutOfTurn(record.seat, record.seq, "the table is closed: the result is recorded")
        if turn.kinds == ("result",):
            # The game is over and its outcome fixed: nobody can forfeit any more, and any seat
            # may write the result if the one named first is gone.
            if record.kind != "result":
                raise OutOfTurn(
                    record.seat, record.seq, "the game is over: only the result remains"
                )
            return self._result(state, signed)
        if record.kind in INTERRUPTS:
            game, incident, forfeit = self._interrupt(state, turn, record)
            return self._advance(
                state,
                signed,
                game,
                incidents=state.incidents + (incident,),
                forfeits=state.forfeits + (forfeit,),
            )
        if record.seat != turn.seat or record.kind not in turn.kinds:
            raise OutOfTurn(
                record.seat,
                record.seq,
                f"expected seat {turn.seat} to write {' or '.join(turn.kinds)}, "
                f"got {record.kind} from seat {record.seat}",
            )
        if record.kind == "beacon":
            return self._beacon(state, signed)
        return self._advance(state, signed, self.rules.apply(state.game, record))

    def check_link(self, state: TableState[S], record: Record) -> None:
        if record.seq != state.seq + 1:
            raise ChainBroken(
                record.seat, record.seq, f"expected seq {state.seq + 1}, got {record.seq}"
            )
        if record.prev != state.link:
            raise ChainBroken(record.seat, record.seq, "prev does not match the previous record")

    def _advance(
        self, state: TableState[S], signed: SignedRecord, game: S, **changes: object
    ) -> TableState[S]:
        record = signed.record
        return evolve(  # once per record: dataclasses.replace would cost more than the checks
            state,
            game=game,
            seq=record.seq,
            link=signed.link,
            history=state.history + ((record.seq, record.seat, record.kind),),
            **changes,
        )

    def _beacon(self, state: TableState[S], signed: SignedRecord) -> TableState[S]:
        record = signed.record
        body = record.body
        if not isinstance(body, dict) or set(body) != {"preimage"}:
            raise MalformedRecord(record.seat, record.seq, "beacon body must be {preimage}")
        preimage = body["preimage"]
        if not beacon.continues(state.beacon_heads[record.seat], preimage):
            raise IllegalAction(
                record.seat, record.seq, "beacon pre-image does not continue this seat's hash chain"
            )
        if state.beacon_rounds + 1 > state.genesis.beacon_length:
            raise IllegalAction(record.seat, record.seq, "the beacon chains are used up")
        heads = list(state.beacon_heads)
        heads[record.seat] = preimage
        pending = state.pending + (preimage,)
        if len(pending) < len(state.genesis.seats):
            return self._advance(
                state, signed, state.game, beacon_heads=tuple(heads), pending=pending
            )
        rounds = state.beacon_rounds + 1
        seed = beacon.round_seed(state.genesis.table, rounds, pending)
        game = self.rules.on_draw(state.game, seed)
        return self._advance(
            state, signed, game, beacon_heads=tuple(heads), pending=(), beacon_rounds=rounds
        )

    def _result(self, state: TableState[S], signed: SignedRecord) -> TableState[S]:
        record = signed.record
        need = self.need(state)
        if not isinstance(need, Result):
            raise OutOfTurn(record.seat, record.seq, "the game is not over")
        if record.body != frozen(need.to_cbor()):
            raise IllegalAction(
                record.seat, record.seq, f"the result is not what the game shows: {need.describe()}"
            )
        return self._advance(state, signed, state.game, result=need)

    def _interrupt(
        self, state: TableState[S], turn: Turn, record: Record
    ) -> tuple[S, Incident, Forfeit]:
        if record.kind == "abandon":
            voters = absence.check_abandon(state.genesis, turn.seat, record)
            what = f"absent: timeouts of seats {', '.join(map(str, voters))}"
            incident = Incident(record.seq, record.seat, turn.seat, "abandon", what)
            seen = [self.rules.seen_secret(state.game, turn.seat)]
            if turn.kinds == ("beacon",) and len(state.pending) == len(state.genesis.seats) - 1:
                seen.append(LAST_MOVER)  # every other pre-image is in: it alone knows the draw
            secret = " and ".join(s for s in seen if s is not None) or None
            reason = ABANDONED if secret is None else DESERTED
            cost = "abandoned" if secret is None else f"deserted after seeing {secret}"
            n = len(state.genesis.seats)
            party = self.claiming_party(state, turn.seat, voters)
            claimed = voters if party is not None else ()
            in_play = not set(turn.kinds) <= set(self.rules.final_reveal)
            held = tuple(range(n)) if party is not None and in_play else ()
            proven = party is None and in_play
            confirm = tuple(sorted(set(voters) - {record.seat})) if proven else ()
            forfeit = Forfeit(turn.seat, record.seq, reason, cost, record.seat, claimed)
            game = self.rules.forfeit(state.game, turn.seat, record.seq, reason, held, confirm)
            return game, incident, forfeit
        accused, error = self.check_evidence(state, turn, record)
        incident = Incident(record.seq, record.seat, accused, "fraud", str(error))
        forfeit = Forfeit(accused, record.seq, FRAUD, f"{error.kind}: {error.what}", record.seat)
        if any(f.seat == accused for f in state.forfeits):  # play already stopped for it
            return state.game, incident, forfeit
        return self.rules.forfeit(state.game, accused, record.seq, FRAUD), incident, forfeit

    def check_evidence(
        self, state: TableState[S], turn: Turn, record: Record
    ) -> tuple[int, RecordError]:
        """The seat that the evidence in a fraud record proves a cheat against, and the cheat.

        One record: the seat expected at this seq signed it for this very place in the chain, and
        the engine rejects it. Two records: one seat signed two different records for one seq on
        one ``prev`` (equivocation), provable against any seat at any time. Evidence that does
        not hold (a bad signature inside it, a valid record) is the accuser's error.
        """
        body = record.body
        if (
            not isinstance(body, dict)
            or set(body) != {"evidence"}
            or not isinstance(body["evidence"], tuple)
        ):
            raise MalformedRecord(
                record.seat, record.seq, "fraud body must be {evidence: [records]}"
            )
        try:
            offered = [parse_record(raw) for raw in body["evidence"] if isinstance(raw, bytes)]
        except RecordError as exc:
            raise MalformedRecord(
                record.seat, record.seq, f"evidence is not a record: {exc}"
            ) from None
        if not 1 <= len(offered) <= 2 or len(offered) != len(body["evidence"]):
            raise MalformedRecord(record.seat, record.seq, "evidence must be one or two records")
        if not stands_as_evidence(*offered):
            raise MalformedRecord(
                record.seat, record.seq, f"evidence records are at most {MAX_EVIDENCE_BYTES} "
                f"bytes, or fraud records that carry only such records"
            )
        seats = state.genesis.seats
        accused = offered[0].seat if len(offered) == 2 else turn.seat
        if accused == record.seat:
            raise IllegalAction(record.seat, record.seq, "a seat cannot accuse itself")
        if any(f.seat == accused and f.reason == FRAUD for f in state.forfeits):
            # proven once is enough: a fraud record is an interrupt and comes first, so one that
            # proved an old pair again at every place would stall the table without end. A seat
            # that forfeited otherwise (declared absent, or only claimed so) may still be proven
            # a cheat once: an absence must not shelter a proven lie (docs/rulings.md)
            raise IllegalAction(
                record.seat, record.seq, f"seat {accused} has already been proven to cheat"
            )
        for e in offered:
            if e.record.table != state.genesis.table or e.seat != accused or e.seat >= len(seats):
                raise IllegalAction(
                    record.seat,
                    record.seq,
                    f"evidence is not a record of seat {accused} at this table",
                )
            try:
                verify_record_signature(e, seats[e.seat].identity)
            except BadSignature:
                raise IllegalAction(
                    record.seat,
                    record.seq,
                    f"evidence record {e.seq} is not signed by seat {accused}",
                ) from None
        if len(offered) == 2:
            a, b = offered
            if a.seq != b.seq or a.record.prev != b.record.prev or a.raw == b.raw:
                raise IllegalAction(
                    record.seat,
                    record.seq,
                    "equivocation evidence needs two different records for one seq and one prev",
                )
            return accused, Equivocation(accused, a.seq, "signed two different records for one seq")
        (e,) = offered
        if e.seq != record.seq or e.record.prev != state.link:
            raise IllegalAction(
                record.seat, record.seq, "evidence was not offered for this place in the chain"
            )
        try:
            self.apply(state, e)
        except RecordError as exc:
            return accused, exc
        raise IllegalAction(record.seat, record.seq, "the evidence record is valid: no fraud shown")

def frozen(value: Any) -> Any:  # any CBOR value, and it as decoding gives it back
    """A value as it reads after a CBOR round trip (lists become tuples)."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: frozen(v) for k, v in value.items()}
    return value
