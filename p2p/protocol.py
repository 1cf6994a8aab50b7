"""The peer protocol: every rule of a session that decides fairness, sans-IO.

As h11 sits under its users, this class sits under ``p2p.session.Session``: frames, clock ticks
and our own records go in (``receive``, ``link_up``, ``link_down``, ``tick``, ``submit``); what
to send, store, remember and tell comes out as a list of actions. It never touches a socket, a
thread, a clock or a file, so the rules below are tested exhaustively without any of them
(``tests/p2p/test_protocol*.py``, and an adversary that is not a list in
``tests/p2p/test_adversary.py``), and the trio shell only moves bytes and time.

Theory of operation
-------------------
* **One chain.** A peer holds the table engine's states and the records that led to them. The
  *place* is where the next record goes: (seq = head + 1, prev = link of the head). The engine
  names the one seat that writes there. What we know and did at the current place is one
  object, ``AtPlace``, new at each place; ``check_invariants`` says what holds between two
  inputs (the tests' simulated network asserts it after every input of every honest peer).
* **Writing.** The shell asks our seat for a record when ``wants_turn`` says so and hands it to
  ``submit``. Every record we sign is remembered by its place before anything else happens
  (``Remember``; the shell makes it durable), and if we are ever asked again at a place where we
  already signed, the remembered record is sent again: a seat never decides a place twice. Our
  turn's record is sent as soon as it is remembered and checked by our engine like anyone's
  right after (``check_own``, before any other input), so the others' checks and the next
  writer do not wait for ours; the proofs and signature our build just made are trusted there,
  not made twice (``crypto.vouch``), and nothing else is.
* **Receiving and passing on.** A record for the place goes through the engine (signature first,
  then chain, turn and rules); if it passes it is stored (``Store``: durable before any frame
  that follows it in the actions) and acknowledged to its author only. Honest peers pass on what
  they accept, but only where a peer shows it lacks it, never all to all: the seat named next is
  sent the record ``relay_patience`` after we accepted it unless it showed us first that it holds
  it (its ack, head, vote or next record); a peer whose head is behind ours is told our head,
  and a peer that learns of a later record (by a head or the record itself) asks for what it
  misses.
* **The clock.** A seat's time counts from when it could have known that it was its turn: at
  each peer, from the moment that peer accepted the record before plus ``relay_patience`` (by
  then it has sent the record to the writer itself, unless the writer showed it holds it). So a
  writer an author starved is not late at any honest peer: each one that accepted the record
  passed it on before it began to count.
* **Bounded.** A record is verified before it is buffered or compared. Records from the future
  are buffered within ``FUTURE_WINDOW`` seqs and within a byte budget per link and in total; a
  branch offered against ours is replayed for at most ``FUTURE_WINDOW`` records; every resend
  (sync replies, records sent to answer a head, an ack or a vote, proofs) is paid from a token
  bucket per seat, kept across its links (one shared by all observers), so a peer that connects
  again gets no fresh budget, and so is every sync reply it sends us (at least
  ``REPLY_RECORD_COST`` a record); a record for a buffered place is checked only if it could
  be the other half of an equivocation; requests we send are rate-limited. A peer that floods,
  fakes acks or asks for syncs in a storm exhausts its own budget, not ours, and a malformed or
  forged frame closes its link. Fraud reports and bans are one per culprit and place (however
  many pairs it signs for one place), votes one per seat, claims held one. No record larger than
  ``MAX_EVIDENCE_BYTES`` (64 KiB, four times the largest a game writes) takes a place but a
  fraud record, and what stands as evidence is such a record or a fraud record that carries
  only such records (``crypto.records.stands_as_evidence``), so a fraud record always carries
  its evidence within a record and a frame, and the pairs kept to show bans are at most 264 KiB
  per place of our chain and seat (every one is kept: a ban we could not show would fork a peer
  that was away when it went round).
* **Conflicts.** Two valid records for one place (same seq, same prev). If one seat signed both,
  that is *equivocation* (below), unless no fraud record could carry the pair (a fraud record
  that carries fraud records, against another of its writer's: nothing that deep stands as
  evidence). Otherwise the *order* decides, the same at every peer that knows the same signed
  records (``_decide``), in this order:

  1. A record on which *a quorum has built* outranks one on which none has. "A quorum has built
     on R" means, locally: among the records we know that descend from R (our chain after it,
     or the branch a peer sent as its proof), a result, or records signed by ``quorum(n)``
     distinct seats other than R's author (a result is settled by itself: two results of one
     place, equal in all but their writer, go by the smaller bytes); a record that only builds
     on a forfeit (the game's ``confirming`` kinds: the kit's ``ready``) is settled too by a
     ``final_reveal`` record of another seat after it (a key share opened on it: red team 23,
     a voter's equivocation at its own ready must not roll it back and kill its vote), and so
     is a forfeit that a ready stage opened a key share on, whoever's (red team 29: at three
     seats the first share opens one builder short of a quorum besides the abandon's writer).
     Nothing rolls back past such a record, nor past the result.
  2. Half of a proven equivocation (any record its seat signed for the place where it signed
     two) never takes a place (the evidence goes to every link, so every peer learns it, and
     to a peer that offers a half, before any proof: it may have been away, or have been sent
     another pair of that seat for that place), except where a quorum built on both records
     of the place: there one seat's equivocation does not put another seat's record first,
     and the rest of the order decides (red team 22: the writer of an abandon settled by its
     ``ready`` records would prove its own equivocation once the key shares opened, and the
     accused's record, settled too, would take play back); a vote is valid only
     for the moment it was signed: it dies when its voter accepts a record for that place,
     which everyone can see once the voter signs a record on top of it. An abandon that
     carries a vote whose voter built on the other record loses to it, unless that voter
     wrote the abandon or built on it too (it chose the abandon, then signed against its own
     vote: the accused's teammate taking play back once the others opened their secrets on
     the abandon, red team 20; a proof of the abandon carries those records).
  3. A claim (one party's word, ``engines.absence.is_claim``) never displaces the accused's
     record unless the claim *stands*: a seat outside the claiming party (and not the accused)
     built on it; the party's own result on it settles nothing, except where no such seat is
     left to build (at two seats, or once every other seat forfeited): there the claim is all
     there is, and its result settles it as any result does.
  4. Otherwise: fraud, then a proven abandon, then a claim, then any other record; then the
     smaller bytes.

  The knowledge of 1 to 3 only grows, and it is carried by signed records: a peer that keeps
  its record for what it knows beyond it sends that knowledge (its branch up to the record that
  decided, after the pair that bans the other record if it knows one: a *proof*) to the peer
  that offered the other one, which replays it and decides the same way. So two honest peers
  that disagree exchange at most a proof each and agree; an honest peer is never forced to
  fork by what it knows, because what it knows can be shown.
  If a quorum has built on both records of a place (some seat built on both branches: a
  Byzantine seat, or an honest one that switched while its own was not yet settled), 2 to 4
  still decide, the same everywhere: the one case in which a settled record, or a result, is
  rolled back (at two seats, a record withheld past its timeout against the other seat's claim;
  elsewhere, half of an equivocation that seats built on before it was proven).
* **Evidence.** Only two different verified records of one seat for one place of our chain, each
  of which stands as evidence, are evidence (an *equivocation*); anything else in an
  ``evidence`` frame closes its link and changes nothing (a pair for a place outside our chain,
  from another seat than the culprit, is ignored: its sender may be on a branch we have not
  seen). A real equivocation is proven to everyone whatever else the cheater sends: it is sent
  to every link, and unless one of its records is settled we roll back to before it and a
  ``fraud`` record is written there (by the culprit's successor, then by the next seats after a
  grace each); where one is settled, it stays and the fraud is written at the head. A record of
  the expected seat that the engine rejects is proven at its place likewise.
* **Absence.** When the seat named at the place sends nothing for ``turn_timeout`` by our clock,
  we first tell everyone our head (a *last call*: whoever holds the record sends it), then after
  a grace we sign an absence vote and send it to all. A peer that holds the record never votes
  and answers every vote with the record. An ``abandon`` record needs the votes of a majority of
  the other seats (``engines.absence``); the voter closest after the accused writes it, the next
  ones after a grace each if it does not (one party's votes wait ``n`` graces more for a vote
  that makes them a proof). Where the votes may be one party's only (two players; SpyNet's teams
  at four; no more voters than a hidden side that is a quorum on its own may have, The
  Resistance's members or a Shady Agents team: ``Table.claiming_party``) the abandon is a
  *claim*: the result says "abandoned, claimed by seat N", no side loses, and we accept a claim
  at the head only once our own clock for the accused ran out (we hold it until then, or until a
  seat outside the party builds on it). A person's paced answer
  (``SessionConfig.answer_delay``) counts from the same moment as its timeout (``since``), and
  the others' clocks start ``relay_patience`` later, so an answer sent before the person's own
  countdown ends arrives before anyone's last call.
* **The result.** The result is what the engine computed; the first seat that has not
  forfeited writes it, and any other after its own timeouts if that one is gone.
* **Observers.** A link without a seat (a spectator, a host that does not play) receives the
  records, heads, evidence and table talk, and may send only ``OBSERVER_FRAMES`` (heads, sync
  requests, a goodbye, evidence, and the branch that decided for its own record, its proof: a
  seat that sends a record to an observer only must not leave the observer with a transcript no
  seat holds, and a seat's signature is all that makes a record, whoever passes it on; what it
  sends is paid from its budget here. Evidence: a seat that sends one half of a place to an
  observer and the other to the seats is proven by the seats all the same, the observer being
  the one that can tell them; like anyone's, evidence that proves nothing closes its link): a
  record or a vote from it closes its link, it never counts in a quorum, and it is sent no vote.
  Nothing secret is ever sent to anyone outside a record (seals live in the records), so an
  observer learns exactly what the transcript shows. An observer offers no record of its own
  accord: a seat whose record at the place of an observer's head differs sends it its branch
  from there (``_on_head``), the observer's replay decides by the order above, as a seat's
  would, and where its own record comes first it answers with its proof as a seat does (red team
  3, stop 28: a result sent to the host alone left it, for good, with a transcript no seat
  held); where the branches forked before the observer's head (the first record it is sent does
  not follow its own record before), it asks for the seat's records from one place further back,
  until they meet.
* **What reaches this protocol** (the shell's guarantees, ``p2p.wire``, ``p2p.handshake`` and
  ``p2p.session``, issue 18). A link is up only after a handshake that binds both identities,
  both nonces, the table and the connection: a relayed handshake opens none. A live
  authenticated link is never replaced without its failure being seen (a second connection is
  held while the old link is probed; both alive, both ends keep the one the lower seat dialed),
  and either seat dials a lost link back. No frame costs more than a bounded amount to refuse:
  1 KiB before the handshake, and every decoder charges each container its items at its head
  (``crypto.encoding.item_budget``), so nothing is built beyond the budget. Send queues are
  bounded in bytes per link and in total, with a deadline per frame; the resend budget above
  is the seat's, kept across its links (``link_up``), the table's seatless host's its own, and
  one for all strangers.
* **Table talk.** ``say`` and ``chat`` frames go to the ``ChatBook`` (``p2p.chat``): beside the
  game, never in its order; verified, rate-limited per speaker and per link, gossiped to every
  link, stored by ``StoreChat`` beside the transcript (a rollback rewrites that file too, with
  ``Rewrite``: a line tied past the new head waits for its record again, so a stored line is
  always tied to a record of the stored transcript); in a game whose talk is off while it
  runs (SpyNet), a line tied to a record before the result is dropped and counted.

Guarantees (each a test in ``tests/p2p/test_protocol*.py``, all of them asserted in every run of
the adversary of ``tests/p2p/test_adversary.py``)
--------------------------------------------------------------------------------------------
1. Every record an honest peer accepts reaches every connected honest peer within a bounded
   time whatever its author does: the next writer within ``relay_patience`` plus a frame's
   delay, any other peer when the next record or a last call shows it lacks it.
2. A seat whose record reaches any honest peer before its time runs out there never forfeits for
   absence: that peer never votes against it, answers every vote with the record and passes it
   on; and no seat's time runs out at a peer before that peer could have passed it the record.
3. No single seat's claim, and no side's where teams are public, makes another seat lose while
   the accused is reachable by the others: an abandon carries a majority of the others' signed
   votes, each signed only after that voter's own timeout; one party's votes are a claim, which
   makes no side lose and, where a quorum needs a seat outside the party (SpyNet's teams at
   four), never displaces the accused's record nor is accepted before the peer's own clock ran
   out. (Where no seat but the party and the accused is left, at two seats or once every
   other seat forfeited, either side can end the game as its claim at any time, as by leaving:
   nobody is left who could tell a stall from a lie, and the claim with its result stands.)
4. A staller is declared absent within ``relay_patience + turn_timeout + (distance + 1) * grace``
   of the place (a claim within ``n`` graces more), as long as a quorum of honest seats is
   connected.
5. Nothing rolls back past a record a quorum has built on, nor past the result, while no other
   record of that place is built on by a quorum (see Conflicts); a vote dies when its voter
   builds on a record of its place; only an equivocation proven at an unsettled place, or a
   record the order puts first, makes a peer roll back.
6. A seat never signs two different records for one place.
7. Every buffer and every resend is bounded per link; nothing unverified is kept.
8. Honest peers that have exchanged heads hold byte-identical transcripts.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from spycraft.crypto.chat import ChatError, SignedChat
from spycraft.crypto.errors import (
    BadSignature,
    ChainBroken,
    MalformedRecord,
    OutOfTurn,
    RecordError,
)
from spycraft.crypto.records import (
    SignedGenesis,
    SignedRecord,
    parse_record,
    stands_as_evidence,
    verify_record_signature,
)
from spycraft.crypto.transcript import Transcript
from spycraft.crypto.vouch import Vouched, vouching
from spycraft.engines import absence
from spycraft.engines.seat import TableSeat
from spycraft.engines.table import FRAUD, INTERRUPTS, Table, TableState, Turn
from spycraft.p2p.bucket import Bucket
from spycraft.p2p.chat import LINK_BURST, LINK_RATE, ChatBook, ChatVerdict, Heard

if TYPE_CHECKING:  # the frames' types only: this module runs no wire (``p2p.wire`` is trio's)
    from spycraft.p2p.wire import (
        AbsentFrame,
        AckFrame,
        ChatFrame,
        EvidenceFrame,
        Frame,
        HeadFrame,
        RecordFrame,
    )

log = logging.getLogger("spycraft.p2p")

LinkId = int
Place = tuple[int, bytes]
"""(seq, prev): where a record goes in the chain."""

FUTURE_WINDOW = 64
"""How many seqs ahead of our head a verified record may be buffered, and how many records of a
branch offered against ours we replay."""
FUTURE_BYTES_PER_LINK = 1 << 20
FUTURE_BYTES_TOTAL = 8 << 20
RESEND_BURST = 4 << 20
"""Bytes a link may make us resend at once (a whole long game fits)."""
RESEND_RATE = 1 << 20
"""Bytes per second a link's resend budget refills."""
SYNC_CHUNK_BYTES = 512 * 1024
SYNC_CHUNK_RECORDS = 1024
"""The most records in one sync reply (the frame's schema: ``wire.MAX_REPLY_RECORDS``): priced
at ``REPLY_RECORD_COST`` a record at the least, a full chunk costs at most 2.5 MiB, within the
budget its receiver pays it from (red team 6: chunks cut by bytes alone could hold more small
records than a budget ever holds, and a peer that far behind could never read its catch-up)."""
HEAD_COST = 64
"""What answering a head costs a link's budget (heads can be sent in a storm too)."""
EVIDENCE_CHECK_COST = 256 << 10
"""What asking the engine about one half of a pair costs the sender's resend budget (so a peer
makes us check at most 16 halves at once and 4 a second, however it asks)."""
GONE: LinkId = -1
"""The sender of a buffered record whose link is gone (no link has this id)."""
REFUSED_KEPT = 4096
"""How many records known not to take their place we remember (32 bytes each), so that a pair
sent again costs no second check."""
REQUEST_INTERVAL = 0.5
"""Seconds between two sync requests we send to one link."""
BEHIND_PATIENCE = 0.3
"""Seconds we wait for a record in flight before asking a peer that is ahead to send it."""
RELAY_PATIENCE = 1.0
"""Seconds after we accept a record before we pass it on to the seat named next, unless that seat
showed us it holds it (at most a turn timeout / 8). Its time counts from then."""
CHAT_HISTORY = 100
"""Chat messages a new spectator is sent at once (the latest)."""
OBSERVER_FRAMES = frozenset({"head", "sync", "bye", "gsig", "evidence", "sync_reply"})
"""All that a link without a seat may send in play (``gsig``: the lobby's late relay;
``evidence``: an equivocation it alone holds both halves of, which only a seat can prove;
``sync_reply``: the seats' records that decided for its own, its proof, paid from its budget
here: ``REPLY_RECORD_COST``)."""
REPLY_RECORD_COST = 2048
"""What each record in a ``sync_reply`` costs its sender's budget here, at the least, a seat's
as an observer's (checking a record is a signature, so a reply of many small records must not
come cheaper than a few large ones: red team 5 made each honest peer check 6,280 signatures per
1 MiB frame of a seat's, 466 ms, free, again and again)."""
SUSPENDED = 2.0
"""An input (a tick, a frame, a record of ours) this long after the one before means we did not
run in between (a laptop asleep, a stopped process): that time counts against nobody
(``_resume_clock``); the shell ticks four times a second."""


# --- actions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    link: LinkId
    frame: Frame


@dataclass(frozen=True)
class Close:
    """Say goodbye with ``reason`` and drop the link (its peer sent something it must not)."""

    link: LinkId
    reason: str


@dataclass(frozen=True)
class Store:
    """Append these records to the transcript file, durably, before the actions that follow."""

    records: tuple[SignedRecord, ...]


@dataclass(frozen=True)
class Rewrite:
    """Replace the transcript file by this transcript (after a rollback), and the chat file by
    ``chat`` unless it is None (the lines tied past the new head wait for their record again)."""

    transcript: Transcript
    chat: tuple[bytes, ...] | None = None


@dataclass(frozen=True)
class Remember:
    """Our own record for (seq, prev), to keep durably before it is sent."""

    seq: int
    prev: bytes
    raw: bytes


@dataclass(frozen=True)
class StoreChat:
    """Append this chat message to the chat file beside the transcript."""

    raw: bytes


@dataclass(frozen=True)
class Notice:
    """Something a person or a log should hear of: record, fraud, equivocation, rollback,
    vote, abandon, report, refused, chat (a ``ChatLine``), muted (seat, why), bye."""

    kind: str
    data: Any


Action = Send | Close | Store | Rewrite | Remember | StoreChat | Notice


class InvariantBroken(AssertionError):
    """The protocol's state broke an invariant (``PeerProtocol.check_invariants``): it is not
    played on; the process ends and resumes from disk."""


def _check(holds: bool, what: str) -> None:
    if not holds:
        raise InvariantBroken(what)


@dataclass
class ProtocolConfig:
    turn_timeout: float = 300.0
    grace: float | None = None  # default: min(2 s, turn_timeout / 4)
    answer_delay: float = 0.0  # our records of the ``paced`` kinds leave this long after their
    # place began, or when built if that is later, so their timing tells nothing about who
    # decided, a person or a bot, asked or forced (DESIGN §4)
    paced: frozenset[str] = frozenset()  # the game's record kinds whose timing could tell

    @property
    def vote_grace(self) -> float:
        return self.grace if self.grace is not None else min(2.0, self.turn_timeout / 4)

    @property
    def relay_patience(self) -> float:
        return min(RELAY_PATIENCE, self.turn_timeout / 8)


@dataclass
class PeerLink:
    """What the protocol knows of one authenticated connection."""

    seat: int | None  # None for an observer
    acked: int = 0  # the highest record of our chain this peer showed it holds (ack, head, ...)
    claimed: int = 0  # the head this peer last told us (not trusted: it only guides requests)
    told: tuple[int, bytes] | None = None  # that head's (seq, link), as its last head frame said
    shown_at: float = -1e9  # when we last showed it ours because that head differs from ours
    future_bytes: int = 0
    asked_at: float = -1e9
    resends: Bucket = field(default_factory=lambda: Bucket.full(RESEND_BURST, RESEND_RATE, 0.0))
    chat: Bucket = field(default_factory=lambda: Bucket.full(LINK_BURST, LINK_RATE, 0.0))

    def spend(self, size: int, now: float) -> bool:
        """Take ``size`` bytes from this link's resend budget, if it has them."""
        return self.resends.take(now, size)


@dataclass
class AtPlace:
    """What we know and did at the current place (``PeerProtocol.at``), all of it new at each
    place: when it began (``since``: the writer's time counts from here, ``relay_patience``
    later at the others), the absence votes we hold for it, when a quorum of them came, our last
    call, whether we voted, told our head at the end, or tried to write the result, when we pass
    the head record on to the writer, and a claim we hold until our own clock ran out."""

    since: float
    votes: dict[int, bytes] = field(default_factory=dict)
    quorum_at: float | None = None
    last_call: float | None = None  # when we last told everyone our head, waiting here
    voted: bool = False
    head_told: bool = False
    result_tried: bool = False
    relay_at: float | None = None  # when we pass the head record on to the writer
    held: tuple[SignedRecord, TableState[Any], LinkId] | None = None  # a claim, held


@dataclass
class _Report:
    """A fraud record we will write at ``due`` unless someone else proves it first: at ``place``
    only (one record the engine rejects there), or at the head (two records of one place)."""

    due: float
    culprit: int
    evidence: tuple[bytes, ...]
    place: Place | None


Replayed = list[tuple[SignedRecord, TableState[Any]]]


def _ban_key(signed: SignedRecord) -> tuple[int, bytes, int]:
    """(seq, prev, seat): a place and a seat that may have equivocated there."""
    return (signed.seq, signed.record.prev, signed.seat)


class PeerProtocol:
    def __init__(
        self,
        *,
        table: Table[Any],
        genesis: SignedGenesis,
        seat: TableSeat | None,
        records: tuple[SignedRecord, ...] = (),
        own: dict[tuple[int, bytes], bytes] | None = None,
        config: ProtocolConfig | None = None,
        now: float = 0.0,
        chat: tuple[SignedChat, ...] = (),
    ) -> None:
        self.table = table
        self.genesis = genesis
        self.seats = genesis.genesis.seats
        self.me = seat
        self.config = config or ProtocolConfig()
        self.quorum = absence.quorum(len(self.seats))
        self.states: list[TableState[Any]] = [table.start(genesis)]
        self.records: list[SignedRecord] = []
        for signed in records:
            self.states.append(table.apply(self.states[-1], signed))
            self.records.append(signed)
        self._stored = len(self.records)  # records the store was told of (resumed: all)
        self.own: dict[tuple[int, bytes], bytes] = dict(own or {})
        self.links: dict[LinkId, PeerLink] = {}
        # seat (or a known observer's identity, or None: the strangers) -> resends, chat
        self.budgets: dict[int | bytes | None, tuple[Bucket, Bucket]] = {}
        self.future: dict[int, tuple[SignedRecord, LinkId]] = {}
        # two records of one seat for one place ahead of our head, met in the buffer
        self._early_pairs: dict[Place, tuple[SignedRecord, SignedRecord]] = {}
        # the last record each link sent for the place after our head on another prev (a
        # branch we may yet take by the order: its author sent it once, and may not again)
        self._strays: dict[LinkId, SignedRecord] = {}
        self.reports: dict[tuple[int, Place | None], _Report] = {}
        # (seq, prev, seat): each seat's equivocation at a place that we proved to everyone
        self.reported: set[tuple[int, bytes, int]] = set()
        self.proven: dict[int, tuple[bytes, bytes]] = {}  # each culprit's first equivocation
        # each place where a seat equivocated, with the first pair that proves it: every
        # record of that seat for that place is a banned half (the knowledge of rule 2, sent
        # with a proof to a peer that offers one), bounded by our chain's places and seats
        # however many pairs a cheater signs for one place
        # (each pair at most 2 * ``MAX_FRAUD_EVIDENCE_BYTES``; every one is kept: a peer that
        # was away when it went round must be shown it, or it keeps a banned half and we fork)
        self.banned: dict[tuple[int, bytes, int], tuple[bytes, bytes]] = {}
        # records no engine takes at their place, by link (a pair of them bans nothing)
        self._refused_there: set[bytes] = set()
        # the banned halves a quorum built on, which took their place all the same
        self._adopted: set[bytes] = set()
        self.ran_out: set[Place] = set()  # places where our clock for the writer ran out
        # a record the engine rejected that the expected seat did sign for the place
        self.lies: dict[Place, SignedRecord] = {}
        self._decided: dict[tuple[bytes, bytes, bytes], tuple[bool, int]] = {}
        self._out: list[Action] = []
        self.chat = ChatBook(genesis.genesis, seat=None if seat is None else seat.index,
                             identity=None if seat is None else seat.identity, stored=chat,
                             finished=self._finished_at, head=self.head)
        self._awake = now  # the time of the last input: we ran then
        self._sent_own: SignedRecord | None = None  # our record sent, not yet checked
        self._sent_vouched: Vouched | None = None  # the proofs we made for it (crypto.vouch)
        self._refused_own: Place | None = None  # where our own engine refused our record
        self._place_reset(now)

    # --- state --------------------------------------------------------------------------

    @property
    def state(self) -> TableState[Any]:
        return self.states[-1]

    @property
    def head(self) -> int:
        return self.state.seq

    @property
    def place(self) -> Place:
        return (self.head + 1, self.state.link)

    @property
    def finished(self) -> bool:
        return self.state.result is not None

    def _finished_at(self, seq: int) -> bool:
        """Whether the table held its result at record ``seq`` (what a game that talks only
        after the result asks of a chat line tied to ``seq``)."""
        return 0 <= seq < len(self.states) and self.states[seq].result is not None

    @property
    def transcript(self) -> Transcript:
        return Transcript(self.genesis, tuple(self.records))

    def accused_by_claims(self) -> frozenset[int]:
        """The seats that a claim in our chain declared absent (one party's word: an abandon
        whose votes are one party's). Such a seat may still hold its own record for that place,
        withheld past its timeout by a cut LAN, which outranks the claim even after a result on
        top (rule 3 of the theory of operation): until it shows it holds ours, our end is not
        the last word."""
        return frozenset(
            signed.record.body["seat"]
            for i, signed in enumerate(self.records)
            if signed.record.kind == "abandon" and self._party(self.states[i], signed) is not None
        )

    @property
    def votes(self) -> dict[int, bytes]:
        """The absence votes we hold for the current place, by voter."""
        return self.at.votes

    def check_invariants(self) -> None:
        """What always holds between two inputs (checked after every frame by the tests'
        simulated network and by the adversary, and in play after a frame that met a bug:
        ``after_fault``): one state per record and the genesis, every record handed to the
        store, a claim held only for the current place, a vote of ours only at a place where we
        voted, buffered records only ahead of our head, a record of ours waiting for its own
        check only for the current place. Checked as code, not ``assert``: ``python -O`` skips
        no check (``InvariantBroken`` names the one that failed)."""
        _check(len(self.states) == len(self.records) + 1, "one state per record and the genesis")
        _check(self.head == len(self.records), "the head is the last record")
        _check(self._stored == len(self.records), "every record in memory handed to the store")
        held, own = self.at.held, self._sent_own
        _check(held is None or (held[0].seq, held[0].record.prev) == self.place,
               "a claim held only for the current place")
        _check(self.at.voted == (self.seat is not None and self.seat in self.at.votes),
               "our vote recorded where we voted")
        _check(all(seq > self.head for seq in self.future) or held is not None,
               "buffered records only ahead of our head")
        _check(own is None or (own.seq, own.record.prev) == self.place,
               "our record awaits its check only at the current place")
        _check(self.at.since <= self._awake, "the place began before now")

    def after_fault(self) -> list[Action]:
        """What an input that raised (a bug of ours that a peer's frame reached) had decided
        before it raised, once the invariants are checked: a state they do not hold in is not
        played on (``InvariantBroken`` ends the process, which resumes from disk); one they hold
        in is, and the frame is dropped."""
        self.check_invariants()
        return self._drain()

    @property
    def since(self) -> float:
        """When the current place began (the last record was accepted), on the caller's clock."""
        return self.at.since

    def leaves_at(self, kind: str) -> float | None:
        """When our record of ``kind``, built now, may leave: for a kind whose timing could
        tell who decided (``ProtocolConfig.paced``), ``answer_delay`` after the place began
        (the longer of the delay and the decision: the record waits, never the decision);
        None for any other: at once."""
        if kind in self.config.paced and self.config.answer_delay > 0:
            return self.at.since + self.config.answer_delay
        return None

    @property
    def seat(self) -> int | None:
        return None if self.me is None else self.me.index

    def wants_turn(self) -> TableState[Any] | None:
        """The state at which our seat must write next, or None (also while our record for the
        place is sent and not yet checked: ``check_own``)."""
        if self.me is None or self._sent_own is not None or (
                self._refused_own is not None and self._refused_own == self.place) or \
                self.me.my_turn(self.state) is None:
            return None
        return self.state

    def _place_reset(self, now: float) -> None:
        self.at = AtPlace(now)

    # --- inputs -------------------------------------------------------------------------

    def link_up(self, link: LinkId, seat: int | None, now: float, *,
                watcher: bytes | None = None) -> list[Action]:
        """A link passed the handshake: ``seat``, or None for an observer; ``watcher``: the
        identity of an observer the genesis names (the table's seatless host), None for a
        stranger."""
        self._resume_clock(now)
        self._check_own(now)
        # A seat's budgets are its own across its links (a peer that connects again gets no
        # fresh budget), and so are those of an observer the table knows (its seatless host);
        # every stranger shares one (a spectator's identity costs nothing to make), so no
        # spectator can spend what the host needs to follow the game (red team 2, stop 28).
        key: int | bytes | None = seat if seat is not None else watcher
        if key not in self.budgets:
            self.budgets[key] = (Bucket.full(RESEND_BURST, RESEND_RATE, now),
                                 Bucket.full(LINK_BURST, LINK_RATE, now))
        resends, chat = self.budgets[key]
        self.links[link] = PeerLink(seat, resends=resends, chat=chat)
        self._send(link, self._head_frame())
        if self.at.voted and self.seat is not None and seat is not None:
            self._send(link, self._vote_frame(self.seat, self.at.votes[self.seat]))
        if seat is None:  # a spectator: the latest table talk (held back until it has synced)
            for raw in self.chat.history[-CHAT_HISTORY:]:
                self._send(link, {"t": "chat", "message": raw})
        return self._drain()

    def link_down(self, link: LinkId) -> None:
        self.links.pop(link, None)
        self._orphan_future_of(link)
        self._strays.pop(link, None)
        if self.at.held is not None and self.at.held[2] == link:
            self.at.held = None

    def _orphan_future_of(self, link: LinkId) -> None:
        """The records a link that is gone had us buffer stay (each was verified, and it may be
        the only copy of a record another seat never got: a cheater's second half of a place,
        sent to one seat just before a frame that closed its link, was forgotten and its
        equivocation never proven; the suite under load, stop 28), sent by no link now."""
        for seq, (signed, sender) in list(self.future.items()):
            if sender == link:
                self.future[seq] = (signed, GONE)

    def submit(self, signed: SignedRecord, now: float, vouched: Vouched | None = None
               ) -> list[Action]:
        """Our seat's record for the current place (built from ``wants_turn``'s state):
        remembered, then sent to every link at once; the shell then calls ``check_own``, which
        checks it as anyone's and takes it into our chain (every other input does that first
        too). So what the others do with our record (check it, and the next writer build on it)
        does not wait for our own check of proofs we have just made (issue 21: at ten seats
        that check of each shuffle was a tenth of the setup's critical path). ``vouched`` holds
        the proofs (and the signature) made while building it (``crypto.vouch``): our check
        trusts those and checks everything else in the record as anyone's."""
        self._resume_clock(now)
        self._check_own(now)
        record = signed.record
        if record.seq != self.head + 1 or record.prev != self.state.link:
            return []  # the table moved on while we thought: the shell asks again
        signed = self._remember(signed)
        frame: RecordFrame = {"t": "record", "record": signed.raw}
        for link in self.links:
            self._send(link, frame)
        self._sent_own, self._sent_vouched = signed, vouched
        return self._drain()

    def check_own(self, now: float) -> list[Action]:
        """Our record that ``submit`` sent, checked by the engine like anyone's and taken into
        our chain (the shell calls this at once after carrying out ``submit``'s actions)."""
        self._resume_clock(now)
        self._check_own(now)
        return self._drain()

    def _check_own(self, now: float) -> None:
        if self._sent_own is None:  # (every input asks: most have nothing to check)
            return
        signed, self._sent_own = self._sent_own, None
        vouched, self._sent_vouched = self._sent_vouched, None
        try:
            with nullcontext() if vouched is None else vouching(vouched):
                self._accept(signed, now, None)
        except RecordError as exc:
            # a bug of ours, which the others refuse too: said loudly, never hidden, and we are
            # not asked again at this place (the same record would be refused again, for ever)
            self._out.append(Notice("refused", (signed, exc)))
            self._refused_own = self.place
            return
        self._release_future(now)

    def receive(self, link: LinkId, frame: Frame, now: float) -> list[Action]:
        """One validated frame (``p2p.wire`` checked its schema) from an authenticated link."""
        self._resume_clock(now)
        self._check_own(now)
        peer = self.links.get(link)
        if peer is None:
            return []
        kind = frame["t"]
        if peer.seat is None and kind not in OBSERVER_FRAMES:
            self._close(link, f"an observer sends no {kind} frame: it has no seat")
            return self._drain()
        if frame["t"] == "record":
            signed = self._parse(link, frame["record"])
            if signed is not None:
                self._on_record(link, signed, (), now)
        elif frame["t"] == "sync_reply":
            cost = sum(max(len(raw), REPLY_RECORD_COST) for raw in frame["records"])
            if peer.spend(cost, now):  # over its sender's budget: not even read
                self._on_sync_reply(link, frame["records"], now)
        elif frame["t"] == "ack":
            self._on_ack(link, frame["seq"], frame["link"], now)
        elif frame["t"] == "head":
            self._on_head(link, frame["seq"], frame["link"], now)
        elif frame["t"] == "sync":
            self._resend(link, frame["from_seq"], now)
        elif frame["t"] == "evidence":
            self._on_evidence(link, frame["records"], now)
        elif frame["t"] == "absent":
            self._on_vote(link, frame, now)
        elif frame["t"] == "chat":
            if peer.chat.take(now):  # over the link's budget: not even verified
                self._on_chat(link, frame["message"], now)
        elif kind in ("gsig", "genesis"):
            pass  # the lobby's late relay, or what a seat sends a spectator: already held
        elif frame["t"] == "bye":
            self._out.append(Notice("bye", (peer.seat, frame["reason"])))
            self._close(link, "goodbye")
        else:
            self._close(link, f"a {kind} frame has no place in play")
        return self._drain()

    def say(self, text: str, now: float) -> list[Action]:
        """Our seat says ``text`` at the table (``ChatRefused`` says why it cannot)."""
        self._resume_clock(now)
        self._check_own(now)
        signed = self.chat.compose(text, self.head, now)
        self._on_chat(None, signed.raw, now)
        return self._drain()

    def tick(self, now: float) -> list[Action]:
        """Time passes: relays, last calls, votes, abandons, held claims, late results, fraud
        reports, heads."""
        self._resume_clock(now)
        self._check_own(now)
        self._due_reports(now)
        turn = self.table.expect(self.state)
        waited = now - self.at.since
        self._show_again(now)
        if turn is None:
            if not self.at.head_told:
                self._tell_head()
            return self._drain()
        self._relay(now)
        timeout = self.config.turn_timeout
        grace = self.config.vote_grace
        writers_time = waited - self.config.relay_patience  # its time counts from then here
        if turn.kinds == ("result",):
            if self.me is not None and turn.seat != self.seat:
                distance = (self.me.index - turn.seat) % len(self.seats)
                if waited >= timeout * distance and not self.at.result_tried:
                    self.at.result_tried = True
                    result = self.me.sign_result(self.state)
                    if result is not None:
                        log.warning("seat %d did not write the result; writing it", turn.seat)
                        self._write(result, now)
        else:
            if writers_time >= timeout + grace:
                self.ran_out.add(self.place)
            if self.me is not None and turn.seat != self.seat:
                self._absence(turn, writers_time, now, timeout, grace)
            self._release_claim(now)
        self._ask_if_behind(now)
        return self._drain()

    # --- passing records on ---------------------------------------------------------------

    def _holds(self, link: LinkId, seq: int) -> None:
        """The peer on ``link`` showed it holds our records up to ``seq``."""
        peer = self.links.get(link)
        if peer is not None and seq > peer.acked:
            peer.acked = seq
        if peer is not None and peer.told is not None and seq >= peer.told[0]:
            peer.told = None  # what it told us before is not its head any more: it holds ours

    def _relay(self, now: float) -> None:
        """The head record to the seat named next, if it has not shown it holds it."""
        if self.at.relay_at is None or now < self.at.relay_at:
            return
        self.at.relay_at = None
        turn = self.table.expect(self.state)
        if turn is None:
            return
        for link, peer in list(self.links.items()):
            if peer.seat == turn.seat and peer.acked < self.head:
                self._resend(link, self.head, now, single=True)

    def _resume_clock(self, now: float) -> None:
        """A peer that did not run for a while (no input for ``SUSPENDED`` s) saw nothing in
        that time, so it is no one's absence: every wait that had begun before it stopped
        resumes where it was, and it reads what arrived meanwhile before it judges anyone. Else
        a laptop that wakes votes at once against a seat whose record waits in its socket, and
        its claim can displace what the others built while it slept."""
        last, self._awake = self._awake, max(self._awake, now)
        if now - last <= SUSPENDED:
            return
        gap = now - last
        log.info("this peer did not run for %.1f s: its waits resume from where they were", gap)
        if self.at.since <= last:
            self.at.since += gap
        if self.at.last_call is not None and self.at.last_call <= last:
            self.at.last_call += gap
        if self.at.quorum_at is not None and self.at.quorum_at <= last:
            self.at.quorum_at += gap
        if self.at.relay_at is not None:
            self.at.relay_at += gap
        for report in self.reports.values():
            report.due += gap

    # --- absence ------------------------------------------------------------------------

    def _absence(self, turn: Turn, waited: float, now: float, timeout: float, grace: float) -> None:
        assert self.me is not None
        again = self.at.last_call is None or now - self.at.last_call >= max(grace, 1.0)
        if waited >= timeout and again:
            # A last call (whoever holds the record sends it), repeated while we wait, with our
            # vote once cast: a frame lost on a link that stayed up is not lost for good.
            self.at.last_call = now
            self._tell_head()
            if self.at.voted:
                frame = self._vote_frame(self.me.index, self.at.votes[self.me.index])
                for link in self.links:
                    self._send(link, frame)
        if waited >= timeout + grace and not self.at.voted:
            self.at.voted = True
            vote = self.me.absence_vote(self.state)
            self.at.votes[self.me.index] = vote
            self._out.append(Notice("vote", turn.seat))
            frame = self._vote_frame(self.me.index, vote)
            for link in self.links:
                self._send(link, frame)
        if not self.at.voted or len(self.at.votes) < self.quorum:
            return
        if self.at.quorum_at is None:
            self.at.quorum_at = now
        n = len(self.seats)
        mine = (self.me.index - turn.seat) % n
        # Each voter closer after the accused writes first, one grace each, whether or not its
        # vote has reached us yet (if it can: it voted, or its link is up): two abandons for one
        # place cost a rollback.
        linked = {peer.seat for peer in self.links.values()} | set(self.at.votes)
        closer = sum(1 for seat in linked if seat is not None and 0 < (seat - turn.seat) % n < mine)
        claim = n > 2 and self.table.claiming_party(self.state, turn.seat, self.at.votes) \
            is not None
        if now >= self.at.quorum_at + (closer + (n if claim else 0)) * grace:
            signed = self.me.sign_abandon(self.state, dict(self.at.votes))
            self._out.append(Notice("abandon", (turn.seat, tuple(sorted(self.at.votes)))))
            self._write(signed, now)

    def _vote_frame(self, voter: int, sig: bytes) -> AbsentFrame:
        turn = self.table.expect(self.state)
        assert turn is not None
        return {
            "t": "absent",
            "seq": self.head + 1,
            "prev": self.state.link,
            "seat": turn.seat,
            "voter": voter,
            "sig": sig,
        }

    def _on_vote(self, link: LinkId, frame: AbsentFrame, now: float) -> None:
        seq, prev, accused, voter = frame["seq"], frame["prev"], frame["seat"], frame["voter"]
        genesis = self.state.genesis
        if seq < 1:  # the genesis is nobody's turn (red team 5: records[-1] of an empty chain)
            self._close(link, f"an absence vote for record {seq}, which nobody writes")
            return
        if not absence.vote_valid(genesis, seq, prev, accused, voter, frame["sig"]):
            self._close(link, "an absence vote that does not verify")
            return
        if 1 < seq <= self.head + 1 and self.records[seq - 2].link == prev:
            self._holds(link, seq - 1)
        if seq <= self.head:
            held = self.records[seq - 1]
            if held.record.prev == prev:  # we hold what the voter waits for: it beats the vote
                self._resend(link, seq, now)
            return
        turn = self.table.expect(self.state)
        if (
            seq == self.head + 1
            and prev == self.state.link
            and turn is not None
            and turn.seat == accused
        ):
            self.at.votes[voter] = frame["sig"]

    # --- records ------------------------------------------------------------------------

    def _parse(self, link: LinkId, raw: bytes) -> SignedRecord | None:
        """A record of this table, or None (and the link closed) for anything else."""
        try:
            signed = parse_record(raw)
        except MalformedRecord as exc:
            self._close(link, str(exc))
            return None
        record = signed.record
        if (
            record.table != self.state.genesis.table
            or record.seat >= len(self.seats)
            or record.seq == 0
        ):
            self._close(link, f"record {record.seq} does not belong at this table")
            return None
        return signed

    def _on_sync_reply(self, link: LinkId, raws: Sequence[bytes], now: float) -> None:
        parsed: list[SignedRecord] = []
        for raw in raws:
            signed = self._parse(link, raw)
            if signed is None:
                return
            parsed.append(signed)
        for i, signed in enumerate(parsed):
            if link not in self.links:
                return
            if self._on_record(link, signed, parsed[i + 1 :], now):
                return  # the rest of the reply was the branch it offered

    def _on_record(
        self, link: LinkId, signed: SignedRecord, rest: Sequence[SignedRecord], now: float
    ) -> bool:
        """One record from ``link`` (``rest``: what followed it in a sync reply). True when
        ``rest`` was taken as the branch built on it."""
        record = signed.record
        if record.seq <= self.head:
            mine = self.records[record.seq - 1]
            if mine.raw == signed.raw:
                self._holds(link, record.seq)
            elif self._verified(link, signed):
                self._on_conflict(link, [signed, *rest], now)
                return True
            return False
        if record.seq > self.head + 1:
            self._buffer(link, signed, now)
            return False
        if self._banned(signed):
            # Half of an equivocation we rolled back: the fraud record takes its place, unless
            # the branch it heads shows that a quorum had built on it, or it is a result (which
            # settles itself: rule 1 before rule 2, as every seat that held it kept it; an
            # observer that learned the pair first waited for ever for a fraud that nobody can
            # write after a result: adversary seed 901950). Its sender may hold it without the
            # pair that bans it: it is shown the pair.
            if (rest or record.kind == "result") and record.prev == self.state.link:
                if not self._adopt_banned(link, [signed, *rest], now):
                    self._show_ban(link, signed, now)
                return True
            self._show_ban(link, signed, now)
            return False
        try:
            accepted = self._accept(signed, now, link)
        except RecordError as exc:
            self._on_invalid(link, signed, exc, now)
            return False
        if accepted:
            self._holds(link, record.seq)
            self._acknowledge(signed)
            self._release_future(now)
        return False

    def _stray(self, link: LinkId, signed: SignedRecord) -> None:
        """A verified record of a branch we do not hold (it differs at or before its place):
        its sender holds it, and if the order takes us to that branch it may be our next record,
        which its author sent once and may never send again. Kept, one per link (the last), and
        taken when it is the record after our head (``_release_future``); its sender is asked
        for the rest if it does not come."""
        peer = self.links[link]
        peer.claimed = max(peer.claimed, signed.seq)
        self._strays[link] = signed

    def _verified(self, link: LinkId, signed: SignedRecord) -> bool:
        try:
            verify_record_signature(signed, self.seats[signed.seat].identity)
        except BadSignature:
            self._close(link, f"record {signed.seq} is not signed by seat {signed.seat}")
            return False
        return True

    def _signed_by_its_seat(self, signed: SignedRecord) -> bool:
        """A malformed body its seat did sign is that seat's lie; anything else is noise."""
        if signed.seat >= len(self.seats):
            return False
        try:
            verify_record_signature(signed, self.seats[signed.seat].identity)
        except BadSignature:
            return False
        return True

    def _buffer(self, link: LinkId, signed: SignedRecord, now: float) -> None:
        peer = self.links[link]
        size = len(signed.raw)
        total = sum(len(s.raw) for s, _ in self.future.values())
        if signed.seq > self.head + FUTURE_WINDOW:
            return
        held = self.future.get(signed.seq)
        pairs = held is not None and self._pairs_early(held[0], signed)
        if held is not None and not pairs:
            # the slot is taken and this one proves nothing beside it: not even checked (a
            # seat's many records for one place cost us one signature, not one each)
            peer.claimed = max(peer.claimed, signed.seq)
            return
        if not self._verified(link, signed):
            return
        peer.claimed = max(peer.claimed, signed.seq - 1)  # the record before is likely in flight
        if held is not None and pairs:
            # two records of one seat for one place ahead of us: proven once we get there
            self._early_pairs[(signed.seq, signed.record.prev)] = (held[0], signed)
        if (
            held is not None  # first come holds the slot; a sync settles the rest
            or peer.future_bytes + size > FUTURE_BYTES_PER_LINK
            or total + size > FUTURE_BYTES_TOTAL
        ):
            # Not kept, so asked for again once we get there: the slot may hold a record of a
            # branch we left (the rest of a reply whose first records proved an equivocation),
            # and this one may be the next writer's only copy of its turn.
            peer.claimed = max(peer.claimed, signed.seq)
            return
        self.future[signed.seq] = (signed, link)
        peer.future_bytes += size
        self._release_claim(now)

    def _pairs_early(self, held: SignedRecord, signed: SignedRecord) -> bool:
        """Whether ``signed``, for the place of the buffered ``held``, would be the other half of
        an equivocation we do not hold yet (and have room for)."""
        place = (signed.seq, signed.record.prev)
        return (held.seat == signed.seat and held.raw != signed.raw
                and held.record.prev == signed.record.prev and place not in self._early_pairs
                and len(self._early_pairs) < FUTURE_WINDOW and stands_as_evidence(held, signed))

    def _release_future(self, now: float) -> None:
        if not (self.future or self._early_pairs or self._strays):
            return  # nothing buffered, no pair met early, no stray: each step below is a no-op
        self._prove_early_pairs(now)
        while self.head + 1 in self.future and self.at.held is None:
            signed, sender = self.future.pop(self.head + 1)
            if sender in self.links:
                self.links[sender].future_bytes -= len(signed.raw)
            if self._banned(signed):
                continue
            try:
                accepted = self._accept(signed, now, sender)
            except RecordError as exc:
                if sender in self.links:
                    self._on_invalid(sender, signed, exc, now)
                self._drop_future_behind()
                return
            if accepted:
                self._acknowledge(signed)
        self._drop_future_behind()
        for link, stray in list(self._strays.items()):
            if self.at.held is None and stray.seq == self.head + 1 and (
                stray.record.prev == self.state.link and link in self.links
            ):
                del self._strays[link]  # the order took us to its branch: it is the next record
                self._on_record(link, stray, (), now)
                return

    def _drop_future_behind(self) -> None:
        """Buffered records at or behind our head are of a place already settled (a sync reply
        may take us past them, and a refused record stops the release before its end)."""
        for seq in [s for s in self.future if s <= self.head]:
            signed, sender = self.future.pop(seq)
            if sender in self.links:
                self.links[sender].future_bytes -= len(signed.raw)

    def _prove_early_pairs(self, now: float) -> None:
        """The pairs met in the buffer whose place is now one of our chain's (or never will be:
        forgotten)."""
        for (seq, prev), (a, b) in list(self._early_pairs.items()):
            if seq > self.head + 1:
                continue
            del self._early_pairs[(seq, prev)]
            if self.states[seq - 1].link == prev:
                self._on_equivocation(a, b, now)

    def _accept(self, signed: SignedRecord, now: float, sender: LinkId | None) -> bool:
        """Engine, then memory; the Store action makes it durable. Raises RecordError. A claim
        from a peer waits (False) until our own clock for the accused ran out."""
        new_state = self.table.apply(self.state, signed)
        if sender is not None and signed.record.kind == "abandon" and \
                self.place not in self.ran_out and self._party(self.state, signed) is not None:
            held = self.at.held
            if held is None or self.rank(self.state, signed) < self.rank(self.state, held[0]):
                self.at.held = (signed, new_state, sender)
            return False
        self._append(signed, new_state, now, sender)
        return True

    def _append(
        self, signed: SignedRecord, new_state: TableState[Any], now: float, sender: LinkId | None
    ) -> None:
        self.records.append(signed)
        self.states.append(new_state)
        self._out.append(Store((signed,)))
        self._stored = len(self.records)
        self._out.append(Notice("record", (self.states[-2], signed, new_state)))
        self._place_reset(now)
        turn = self.table.expect(new_state)
        if sender is not None and turn is not None and turn.seat not in (self.seat, signed.seat):
            self.at.relay_at = now + self.config.relay_patience
        key = (signed.seq, signed.link)
        for link, peer in self.links.items():
            if peer.told == key:
                # it told us this head before we held it (``_on_head`` could not check it
                # then): it holds what we now hold; else a seat that told the end first, and
                # so never again, was still awaited at the end (``Session._linger``)
                self._holds(link, signed.seq)
        if turn is None:
            # The end: every link hears at once that we hold it. A seat waits for every other
            # to confirm the end before it leaves (an ack goes to the author alone), and one
            # that found every other's confirmation already there left before its next tick
            # told its own: the rest waited for it a turn timeout (3 of 60 ten-bot tables).
            self._tell_head()
        self._chat_verdicts(self.chat.advance(self.head, now), None)
        if new_state.result is not None:
            self._chat_verdicts(self.chat.abandon_pending(), None)
        lie = self.lies.pop((signed.seq, signed.record.prev), None)
        self.lies.clear()  # a lie matters only at the place it was told for (only the next one)
        if lie is not None and lie.seat == signed.seat and stands_as_evidence(signed, lie):
            # It signed a record the engine rejects and another one for this very place: that
            # is an equivocation, whichever half of the table got which.
            self._on_equivocation(signed, lie, now)

    def _remember(self, signed: SignedRecord) -> SignedRecord:
        """A record we signed for the current place, remembered by its place before anything
        else; if we signed another one there before (asked again after a crash), that one."""
        key = (signed.seq, signed.record.prev)
        remembered = self.own.get(key)
        if remembered is not None and remembered != signed.raw:
            log.warning("asked twice at record %d: sending what we signed first", signed.seq)
            return parse_record(remembered)
        if remembered is None:
            self.own[key] = signed.raw
            self._out.append(Remember(signed.seq, signed.record.prev, signed.raw))
        return signed

    def _write(self, signed: SignedRecord, now: float) -> None:
        """A record we signed for the current place (an interrupt, a result): remembered by
        place before anything else, accepted like anyone's, then sent to all."""
        signed = self._remember(signed)
        try:
            self._accept(signed, now, None)
        except RecordError as exc:
            self._out.append(Notice("refused", (signed, exc)))  # a bug of ours: never sent
            return
        frame: RecordFrame = {"t": "record", "record": signed.raw}
        for link in self.links:
            self._send(link, frame)
        self._release_future(now)

    def _acknowledge(self, signed: SignedRecord) -> None:
        frame: AckFrame = {"t": "ack", "seq": signed.seq, "link": signed.link}
        author = signed.seat
        for link, peer in self.links.items():
            if peer.seat == author:
                self._send(link, frame)

    def _on_invalid(
        self, link: LinkId, signed: SignedRecord, error: RecordError, now: float
    ) -> None:
        if isinstance(error, ChainBroken):
            # Not a lie: the sender is on another branch. Show it our head record; the
            # conflict rule settles it there, one record at a time backwards if need be (an
            # observer tells its head instead, ``_show_ours``). It holds this record: if the
            # order takes us to its branch, it may be our next (``_stray``).
            self._stray(link, signed)
            self._show_ours(link, self.head, now)
            return
        if isinstance(error, BadSignature) or (
            isinstance(error, MalformedRecord) and not self._signed_by_its_seat(signed)
        ):
            self._close(link, f"invalid record {signed.seq}: {error}")
            return
        turn = self.table.expect(self.state)
        provable = (
            turn is not None
            and signed.seat == turn.seat
            and signed.record.prev == self.state.link
            and stands_as_evidence(signed)  # a fraud record can carry it
        )
        self._out.append(Notice("fraud", (signed, error)))
        if provable:
            place = (signed.seq, signed.record.prev)
            self.lies[place] = signed
            self._schedule_report(signed.seat, (signed.raw,), now, place)
        if self.links[link].seat == signed.seat or not provable:
            self._close(link, f"invalid record {signed.seq}: {error}")

    # --- claims -------------------------------------------------------------------------

    def _party(self, before: TableState[Any], signed: SignedRecord) -> frozenset[int] | None:
        """For a valid abandon at ``before`` that is one party's claim: that party."""
        if signed.record.kind != "abandon":
            return None
        return self.table.claiming_party(before, signed.record.body["seat"],
                                         absence.voters(signed.record))

    def _release_claim(self, now: float) -> None:
        """Accept the claim we hold once our own clock ran out, or once a seat outside its
        party built on it."""
        if self.at.held is None:
            return
        signed, new_state, sender = self.at.held
        if signed.record.prev != self.state.link or signed.seq != self.head + 1:
            self.at.held = None
            return
        party = self._party(self.state, signed)
        assert party is not None
        nxt = self.future.get(self.head + 2)
        built = (
            nxt is not None
            and nxt[0].record.prev == signed.link
            and nxt[0].seat not in party | {signed.record.body["seat"]}
        )
        if self.place not in self.ran_out and not built:
            return
        self.at.held = None
        self._append(signed, new_state, now, sender)
        self._acknowledge(signed)
        self._release_future(now)

    # --- conflicts ----------------------------------------------------------------------

    def rank(self, before: TableState[Any], signed: SignedRecord) -> tuple[int, bytes]:
        """The last word of the order between two valid records for one place (rule 4 of the
        theory of operation), the same on every peer: fraud, proven abandon, claim, the rest."""
        kind = signed.record.kind
        if kind == "fraud":
            first = 0
        elif kind == "abandon":
            first = 1 if self._party(before, signed) is None else 2
        else:
            first = 3
        return (first, signed.raw)

    def _own_word(self, signed: SignedRecord) -> frozenset[int]:
        """For a claim at a table where a seat outside its party (and the accused) still plays:
        the party and the accused, whose result on top adds nothing to the claim (rule 3).
        Elsewhere nobody: at two seats, or once every other seat has forfeited, the claim is
        all there is (no seat is left that could make it stand), and it makes no side lose."""
        seq = signed.record.seq
        if seq - 1 >= len(self.states):
            return frozenset()
        before = self.states[seq - 1]
        party = self._party(before, signed)
        if party is None:
            return frozenset()
        word = party | {signed.seat, signed.record.body["seat"]}
        gone = {forfeit.seat for forfeit in before.forfeits}
        return word if len(word | gone) < len(self.seats) else frozenset()

    def _settled(self, signed: SignedRecord, after: Sequence[SignedRecord]) -> int | None:
        """Where in ``after`` (the records known to build on ``signed``) a quorum had built on it
        (rule 1): the index of the result, or of the record that made ``quorum`` builders (-1
        for the result itself: nothing comes after it, nothing takes its place)."""
        if signed.record.kind == "result":
            return -1
        rules = self.table.rules
        builders: set[int] = set()
        staged = False  # a confirming record (a ready) builds on ``signed``
        for i, other in enumerate(after):
            staged = staged or other.record.kind in rules.confirming
            if other.record.kind == "result":
                # A result settles what it ends, unless the record is a claim and the result
                # its own party's (or the accused's): still one party's word (rule 3).
                return None if other.seat in self._own_word(signed) else i
            if other.record.kind in rules.final_reveal and (
                    signed.record.kind in rules.confirming and other.seat != signed.seat
                    or signed.record.kind in INTERRUPTS and staged):
                # A key share opened on a ready stage settles its readies, as a result does: a
                # voter that proves its own equivocation at its ready, unsettled when the first
                # share opened, would roll it back, and its vote, no longer built on the
                # abandon, would die and hand the place to the accused's record (red team 23).
                # A seat has one valid ready for a place (its body is empty): the other half
                # of such a pair is never built on, so no second branch settles. A forfeit
                # (abandon, fraud) a ready stage opened a key share on, anyone's, its writer's
                # too, is settled as well (``staged``: a ready came between them, the forfeit
                # was in play). At three seats the stage opens the first share once both seats
                # left readied, the writer's ready among them, one builder short of quorum(3)
                # (red team 29): the writer proved its own equivocation at the place, or sent
                # a fraud record for it (rule 4 puts it before an abandon) and then banned it,
                # and the accused's withheld record took play on after the share opened.
                return i
            if other.seat != signed.seat:
                builders.add(other.seat)
                if len(builders) >= self.quorum:
                    return i
        return None

    def _dead(self, signed: SignedRecord, own_after: Sequence[SignedRecord],
              other_after: Sequence[SignedRecord]) -> int | None:
        """For an abandon: where in the other record's branch one of its voters built on the
        other record (rule 2), so its vote died. Not a voter that wrote the abandon or built
        on it: that one knew both and chose the abandon, and a voter of the accused's side
        that builds on both must not take back, once the others opened their secrets on the
        abandon, what its vote proved (red team 20)."""
        voters = absence.voters(signed.record) - {signed.seat}
        voters -= {other.seat for other in own_after}
        for i, other in enumerate(other_after):
            if other.seat in voters:
                return i
        return None

    def _built_by_voters(self, signed: SignedRecord, after: Sequence[SignedRecord]) -> int | None:
        """For an abandon: where in ``after`` the last of its voters built on it (a vote that
        then does not die, ``_dead``), so a proof of it carries those records."""
        voters = absence.voters(signed.record)
        found = [i for i, other in enumerate(after) if other.seat in voters]
        return found[-1] if found else None

    def _stands(
        self, claim: SignedRecord, after: Sequence[SignedRecord], party: frozenset[int]
    ) -> int | None:
        """Where in ``after`` a seat outside the claiming party (not the accused) built on a
        claim, so that it stands against the accused's record (rule 3)."""
        outside = set(range(len(self.seats))) - party - {claim.record.body["seat"]}
        for i, other in enumerate(after):
            if other.seat in outside:
                return i
        return None

    def _decide(
        self,
        seq: int,
        mine: SignedRecord,
        mine_after: Sequence[SignedRecord],
        theirs: SignedRecord,
        theirs_after: Sequence[SignedRecord],
    ) -> tuple[bool, int]:
        """The order of the theory of operation between our record for ``seq`` and theirs:
        (theirs comes first, how many of our records from ``seq`` on are the proof of ours)."""
        before = self.states[seq - 1]
        settled_mine = self._settled(mine, mine_after)
        settled_theirs = self._settled(theirs, theirs_after)
        dead_mine = self._dead(mine, mine_after, theirs_after)
        dead_theirs = self._dead(theirs, theirs_after, mine_after)
        ours_party, their_party = self._party(before, mine), self._party(before, theirs)
        stands_mine = stands_theirs = None
        claim_against_record = False
        if ours_party is not None and theirs.record.kind not in INTERRUPTS:
            claim_against_record = True
            stands_mine = self._stands(mine, mine_after, ours_party)
        elif their_party is not None and mine.record.kind not in INTERRUPTS:
            claim_against_record = True
            stands_theirs = self._stands(theirs, theirs_after, their_party)
        facts = (settled_mine, dead_theirs, stands_mine, self._built_by_voters(mine, mine_after))
        proof = max((i + 2 for i in facts if i is not None), default=1)
        if (settled_mine is None) != (settled_theirs is None):
            return settled_theirs is not None, proof
        banned_mine, banned_theirs = self._banned(mine), self._banned(theirs)
        if settled_mine is not None and mine.seat != theirs.seat:
            # Both settled, and two seats' records: one seat's equivocation does not hand its
            # place to another seat's record that the order would not put first. The writer of
            # an abandon settled by the ready stage (the accused's partner) would otherwise
            # prove its own equivocation there once the key shares opened, and the accused's
            # record, settled by a seat that built on it before it switched, would take play
            # back (red team 22).
            banned_mine = banned_theirs = False
        if banned_mine != banned_theirs:
            return banned_mine, proof  # half of a proven equivocation never takes a place
        if (dead_mine is None) != (dead_theirs is None):
            return dead_mine is not None, proof
        if claim_against_record:
            if ours_party is not None:
                return stands_mine is None, proof
            return stands_theirs is not None, proof
        return self.rank(before, theirs) < self.rank(before, mine), proof

    def _replay(self, before: TableState[Any], branch: Sequence[SignedRecord]) -> Replayed:
        """The valid beginning of a branch offered for the place after ``before`` (the first
        record must be valid: RecordError otherwise), at most ``FUTURE_WINDOW`` records."""
        replayed: Replayed = []
        state = before
        for signed in branch[:FUTURE_WINDOW]:
            try:
                state = self.table.apply(state, signed)
            except RecordError:
                if not replayed:
                    raise
                break
            replayed.append((signed, state))
            if state.result is not None:
                break
        return replayed

    def _on_conflict(self, link: LinkId, branch: list[SignedRecord], now: float) -> None:
        theirs = branch[0]
        seq = theirs.seq
        mine = self.records[seq - 1]
        if theirs.record.prev != mine.record.prev:
            # We differ earlier: show them our record one place back, until prevs agree. An
            # observer shows no record: it asks for theirs from one place back instead, so a
            # seat's branch that forked before the observer's head reaches it whole (a seat
            # sends an observer its branch from the observer's head only, ``_on_head``).
            self._stray(link, theirs)
            if seq > 1:
                if self.me is None:
                    self._send(link, {"t": "sync", "from_seq": seq - 1})
                else:
                    self._resend(link, seq - 1, now, single=True)
            return
        if theirs.seat == mine.seat and stands_as_evidence(mine, theirs):
            self._on_equivocation(mine, theirs, now, link=link, branch=branch)
            return
        # Two seats' records, or one seat's that no fraud record can carry (a fraud record that
        # carries fraud records, against another of its writer's): the order decides.
        key = (self.state.link, theirs.raw, branch[-1].link)
        decided = self._decided.get(key)
        if decided is not None and not decided[0]:
            self._prove(link, seq, decided[1], now, theirs)  # the same offer: the same answer
            return
        try:
            replayed = self._replay(self.states[seq - 1], branch)
        except RecordError:
            if self.links[link].seat == theirs.seat:
                self._close(link, f"record {seq} is not valid at its place")
            else:
                self._resend(link, seq, now, single=True)
            return
        theirs_after = [signed for signed, _ in replayed[1:]]
        wins, proof = self._decide(seq, mine, self.records[seq:], theirs, theirs_after)
        if wins:
            self._switch(seq, replayed, now)
            return
        if len(self._decided) >= FUTURE_WINDOW:
            self._decided.clear()
        self._decided[key] = (False, proof)
        self._prove(link, seq, proof, now, theirs)

    def _switch(self, seq: int, replayed: Replayed, now: float) -> None:
        """Roll back to before ``seq`` and take the branch the order put first."""
        self._rollback(seq - 1, now)
        for signed, state in replayed:
            if signed.seq != self.head + 1 or signed.record.prev != self.state.link:
                break  # what we appended proved an equivocation and rolled back: stop there
            self._append(signed, state, now, None)
            self._acknowledge(signed)
        # The seat named next may still be on the branch we left: what it acked there says
        # nothing of this one, so it is sent the head like any record we accepted, and its
        # time counts from then (a switch must not start an honest writer's clock unseen).
        turn = self.table.expect(self.state)
        if turn is not None and turn.seat != self.seat and self.records:
            self.at.relay_at = now + self.config.relay_patience
        self._release_future(now)

    def _prove(
        self, link: LinkId, seq: int, proof: int, now: float, theirs: SignedRecord | None = None
    ) -> None:
        """Show a peer our record for ``seq`` and the ``proof - 1`` records that decided for it,
        after the pair that proves ``theirs`` half of an equivocation if we know one: the whole
        of what decided, so the peer, which knows no less after it, decides the same way."""
        if theirs is not None:
            self._show_ban(link, theirs, now)
        if proof <= 1:
            self._resend(link, seq, now, single=True)
        else:
            self._resend(link, seq, now, upto=seq + proof - 1)

    def _show_ban(self, link: LinkId, signed: SignedRecord, now: float) -> None:
        """The pair that bans ``signed``, if we know one, to the peer that offered it (rule 2:
        the pair went to every link once, but that peer may have been away, or been sent
        another pair of the culprit's for that place, the one sent on), paid from its budget."""
        evidence = self.banned.get(_ban_key(signed)) if self._banned(signed) else None
        peer = self.links.get(link)
        if evidence is not None and peer is not None and peer.spend(sum(map(len, evidence)), now):
            self._send(link, {"t": "evidence", "records": list(evidence)})

    def _banned(self, signed: SignedRecord) -> bool:
        """Whether ``signed`` is half of a proven equivocation (its seat signed two records for
        its place), and no quorum built on it."""
        return _ban_key(signed) in self.banned and signed.raw not in self._adopted

    def _adopt_banned(self, link: LinkId, branch: list[SignedRecord], now: float) -> bool:
        """Take a branch headed by a banned half if a quorum built on it (True)."""
        try:
            replayed = self._replay(self.state, branch)
        except RecordError:
            return False
        if self._settled(branch[0], [signed for signed, _ in replayed[1:]]) is None:
            return False
        self._adopted.add(branch[0].raw)
        self._switch(branch[0].seq, replayed, now)
        return True

    # --- evidence -----------------------------------------------------------------------

    def _on_evidence(self, link: LinkId, raws: Sequence[bytes], now: float) -> None:
        try:
            a, b = (parse_record(raw) for raw in raws)
        except (MalformedRecord, ValueError) as exc:
            self._close(link, f"bad evidence: {exc}")
            return
        pair = (
            a.seq == b.seq
            and a.seq > 0
            and a.seat == b.seat
            and a.record.prev == b.record.prev
            and a.raw != b.raw
            and a.record.table == b.record.table == self.state.genesis.table
            and a.seat < len(self.seats)
        )
        if not stands_as_evidence(a, b):
            # No fraud record could carry the pair (a peer decides such a pair by the order and
            # never sends it as evidence).
            self._close(link, "evidence larger than a record may be")
            return
        if not pair or not (self._verified(link, a) and self._verified(link, b)):
            self._close(link, "evidence that proves nothing")
            return
        if a.seq > self.head + 1 or self.states[a.seq - 1].link != a.record.prev:
            if self.links[link].seat == a.seat:
                self._close(link, "evidence against itself for no place of our chain")
            return  # perhaps a place on a branch we never held: it proves nothing here
        checks = sum(self._needs_a_check(r) for r in (a, b))
        if checks and (a.seq, a.record.prev, a.seat) not in self.banned and \
                not self.links[link].spend(checks * EVIDENCE_CHECK_COST, now):
            # Asking the engine whether a half could take its place costs a full check of the
            # record (a shuffle's proof: 90 ms), so the sender pays for it from its budget; past
            # it the frame is as if lost (red team 4, stop 28: junk copies of a shuffle, a pair a
            # frame, cost 95 times their signing). What matters comes back: a peer that holds a
            # half shows the pair again with the branch it offers (``_show_ban``).
            return
        self._on_equivocation(a, b, now)  # again if need be: we may hold one half once more

    def _on_equivocation(
        self,
        a: SignedRecord,
        b: SignedRecord,
        now: float,
        *,
        link: LinkId | None = None,
        branch: Sequence[SignedRecord] = (),
    ) -> None:
        """Two different records ``a`` and ``b`` one seat signed for one place of our chain,
        each of which stands as evidence (a pair that does not is decided by the order)."""
        seq, culprit = a.seq, a.seat
        evidence = (min(a.raw, b.raw), max(a.raw, b.raw))
        pair = (seq, a.record.prev, culprit)
        # A ban decides something only where a half could take the place (the engine takes it
        # there): a pair of records no engine would take there (junk a seat signs for every
        # place of the chain, red team 2 of stop 28) is kept, and sent round, only as the proof
        # that its seat cheats, once per seat, and bans nothing: so what a seat can make us
        # keep and send is one pair, not one per place.
        if pair not in self.banned and not (
                self._may_take_its_place(a) or self._may_take_its_place(b)):
            if culprit not in self.proven:
                self._report_pair(pair, a, b, evidence)
                self.proven[culprit] = evidence
                self._schedule_report(culprit, evidence, now, None)
            return
        self._report_pair(pair, a, b, evidence)
        self.proven.setdefault(culprit, evidence)
        if pair not in self.banned:  # every peer that knows a pair bans the place's (rule 2)
            self.banned[pair] = evidence
            self._decided.clear()  # what we decided without knowing it may go otherwise now
        if seq <= self.head and self.records[seq - 1].raw in evidence:
            mine = self.records[seq - 1]
            theirs = b if mine.raw == a.raw else a
            settled_mine = self._settled(mine, self.records[seq:])
            replayed: Replayed | None = None
            if branch and branch[0].raw == theirs.raw:
                try:
                    replayed = self._replay(self.states[seq - 1], branch)
                except RecordError:
                    replayed = None
            settled_theirs = (
                None if replayed is None
                else self._settled(theirs, [signed for signed, _ in replayed[1:]])
            )
            before = self.states[seq - 1]
            if settled_mine is None and settled_theirs is None:
                self._rollback(seq - 1, now)
            elif replayed is not None and settled_theirs is not None and (
                settled_mine is None or self.rank(before, theirs) < self.rank(before, mine)
            ):
                self._switch(seq, replayed, now)  # a quorum built on theirs: it stays
            elif link is not None and settled_mine is not None:
                self._prove(link, seq, settled_mine + 2, now)
        self._schedule_report(culprit, evidence, now, None)

    def _report_pair(self, pair: tuple[int, bytes, int], a: SignedRecord, b: SignedRecord,
                     evidence: tuple[bytes, bytes]) -> None:
        """Tell the shell and every link of an equivocation, once per culprit and place."""
        if pair not in self.reported:
            self.reported.add(pair)
            self._out.append(Notice("equivocation", (a, b)))
            frame: EvidenceFrame = {"t": "evidence", "records": list(evidence)}
            for other in self.links:
                self._send(other, frame)

    def _needs_a_check(self, signed: SignedRecord) -> bool:
        """Whether ``_may_take_its_place`` would ask the engine (our record there, one known to
        be refused there, or one of a seat and kind that cannot write there, need no check)."""
        seq = signed.seq
        if seq <= self.head and self.records[seq - 1].raw == signed.raw:
            return False
        if signed.link in self._refused_there:
            return False
        turn = self.table.expect(self.states[seq - 1])
        return turn is not None and (signed.record.kind in INTERRUPTS or (
            signed.seat == turn.seat and signed.record.kind in turn.kinds))

    def _may_take_its_place(self, signed: SignedRecord) -> bool:
        """Whether ``signed`` holds its place of our chain, or the engine would take it there.
        Only the expected seat's own kinds and the interrupts can: anything else is refused
        before the engine is asked, so a pair costs at most two checks of a record its seat
        could have written there."""
        seq = signed.seq
        if seq <= self.head and self.records[seq - 1].raw == signed.raw:
            return True
        if signed.link in self._refused_there:
            return False
        before = self.states[seq - 1]
        turn = self.table.expect(before)
        try:
            if turn is None or signed.record.kind not in INTERRUPTS and (
                    signed.seat != turn.seat or signed.record.kind not in turn.kinds):
                raise OutOfTurn(signed.seat, seq, "not this place's writer or kind")
            self.table.apply(before, signed)
        except RecordError:
            if len(self._refused_there) >= REFUSED_KEPT:
                self._refused_there.clear()  # checked again if it comes back: bounded memory
            self._refused_there.add(signed.link)
            return False
        return True

    def _schedule_report(
        self, culprit: int, evidence: tuple[bytes, ...], now: float, place: Place | None,
        *, at_once: bool = True,
    ) -> None:
        if self.me is None or self.me.index == culprit or (culprit, place) in self.reports:
            return
        distance = (self.me.index - culprit) % len(self.seats)
        due = now + (distance - 1) * self.config.vote_grace
        self.reports[(culprit, place)] = _Report(due, culprit, evidence, place)
        if at_once:
            self._due_reports(now)

    def _due_reports(self, now: float) -> None:
        if self.me is None:
            return
        gone = {forfeit.seat for forfeit in self.state.forfeits if forfeit.reason == FRAUD}
        for culprit, evidence in list(self.proven.items()):  # still to prove (after a rollback)
            if culprit not in gone and (culprit, None) not in self.reports and not self.finished:
                self._schedule_report(culprit, evidence, now, None, at_once=False)
        for key, report in sorted(self.reports.items(), key=lambda item: item[1].due):
            place = report.place
            if self.finished or report.culprit in gone or (place and place[0] <= self.head):
                del self.reports[key]  # proven, or someone wrote at that place already
                continue
            if report.due > now or (place is not None and place != self.place):
                continue
            turn = self.table.expect(self.state)
            if turn is None or turn.kinds == ("result",):
                del self.reports[key]
                continue
            del self.reports[key]
            signed = self.me.sign(self.state, "fraud", {"evidence": list(report.evidence)})
            self._out.append(Notice("report", (self.head + 1, len(report.evidence))))
            self._write(signed, now)
            return  # the table moved: the next report waits for the next tick

    def _rollback(self, seq: int, now: float) -> None:
        """Keep records 1..seq: only an equivocation or the order of conflicts leads here."""
        dropped = len(self.records) - seq
        if dropped <= 0:
            return
        del self.records[seq:]
        del self.states[seq + 1 :]
        self.future.clear()
        self._decided.clear()
        self.lies.clear()
        for peer in self.links.values():
            peer.future_bytes = 0
            peer.acked = min(peer.acked, seq)
        self._out.append(Rewrite(self.transcript, self.chat.roll_back(seq)))
        self._stored = len(self.records)
        self._out.append(Notice("rollback", (seq, dropped)))
        self._place_reset(now)

    # --- heads, acks, syncs --------------------------------------------------------------

    def _head_frame(self) -> HeadFrame:
        return {"t": "head", "seq": self.head, "link": self.state.link}

    def _tell_head(self) -> None:
        self.at.head_told = True
        frame = self._head_frame()
        for link in self.links:
            self._send(link, frame)

    def _on_ack(self, link: LinkId, seq: int, link_hash: bytes, now: float) -> None:
        if seq == 0 or seq > self.head:
            return  # an ack for what we do not hold proves nothing and asks nothing
        if self.records[seq - 1].link == link_hash:
            self._holds(link, seq)
        else:
            self._resend(link, seq, now, single=True)

    def _on_head(self, link: LinkId, seq: int, link_hash: bytes, now: float) -> None:
        peer = self.links[link]
        peer.claimed = seq
        peer.told = (seq, link_hash)
        peer.shown_at = now
        if seq > self.head:
            if self.finished:  # nothing follows a result: it is on another branch, show it ours
                self._show_ours(link, self.head, now)
            return  # the ticker asks if the records do not come by themselves
        ours = self.state.genesis_link if seq == 0 else self.records[seq - 1].link
        if ours != link_hash:
            if peer.seat is None:
                # An observer sends no record, so it can never offer its own as a conflict and
                # be shown the proof: it is sent our branch from that place on at once (what it
                # replays decides as everywhere), or it would keep a record no seat holds.
                self._resend(link, seq, now, upto=self.head)
            else:
                self._show_ours(link, seq, now)
            return
        self._holds(link, seq)
        if seq < self.head:
            if peer.spend(HEAD_COST, now):  # it is behind: it asks once it knows (and if the
                self._send(link, self._head_frame())  # records in flight do not come first)
        elif self.at.voted and self.seat is not None:  # it waits where we voted: it may need ours
            self._send(link, self._vote_frame(self.seat, self.at.votes[self.seat]))

    def _show_again(self, now: float) -> None:
        """A peer whose last head says it holds another record than ours at that seq is shown
        ours again every ``REQUEST_INTERVAL``, as long as it says so: a first showing refused
        for a budget that strangers had spent, or lost with a link, must not leave two honest
        peers (an observer above all, which offers no record) each keeping its own for good
        (red team 2, stop 28: a seatless host left with a sore loser's claim). What we send is
        paid from that peer's budget, as every resend is."""
        for link, peer in list(self.links.items()):
            if peer.told is None or now - peer.shown_at < REQUEST_INTERVAL:
                continue
            seq, theirs = peer.told
            if not 0 < seq <= self.head or self.records[seq - 1].link == theirs:
                continue
            peer.shown_at = now
            if peer.seat is None and self.me is not None:
                self._resend(link, seq, now, upto=self.head)
            else:
                self._show_ours(link, seq, now)

    def _show_ours(self, link: LinkId, seq: int, now: float) -> None:
        """Show a seat whose head says it holds another record at ``seq`` ours there. An
        observer shows no record: it tells its head, and a seat whose record there differs
        sends it its branch from there (above), which it follows back to where they forked
        (``_on_conflict``). Found by the chaos run: a seat that switched branches after the
        host took its old one told the host its new head, and the host, which could not answer
        with a record, kept a transcript no seat held."""
        if self.me is not None:
            self._resend(link, seq, now, single=True)
        elif self.links[link].spend(HEAD_COST, now):
            self._send(link, self._head_frame())

    def _request(self, link: LinkId, now: float) -> None:
        peer = self.links[link]
        if now - peer.asked_at >= REQUEST_INTERVAL:
            peer.asked_at = now
            self._send(link, {"t": "sync", "from_seq": self.head + 1})

    def _ask_if_behind(self, now: float) -> None:
        """Ask one peer that says it is ahead for what we miss (the least recently asked
        first, so a peer that lies about its head cannot keep us from asking the others)."""
        ahead = [link for link, peer in self.links.items() if peer.claimed > self.head]
        if not ahead or now - self.at.since < BEHIND_PATIENCE:
            return
        self._request(min(ahead, key=lambda link: self.links[link].asked_at), now)

    def _resend(
        self, link: LinkId, from_seq: int, now: float, *, single: bool = False,
        upto: int | None = None,
    ) -> None:
        """Send our records from ``from_seq`` on (one only if ``single``, up to ``upto``), paid
        from the link's budget: a peer can make us resend only so much, however it asks."""
        peer = self.links.get(link)
        if peer is None or from_seq < 1 or from_seq > self.head:
            return
        last = from_seq if single else self.head if upto is None else min(upto, self.head)
        chunk: list[bytes] = []
        size = 0
        for signed in self.records[from_seq - 1 : last]:
            if chunk and (size + len(signed.raw) > SYNC_CHUNK_BYTES
                          or len(chunk) == SYNC_CHUNK_RECORDS):
                break
            chunk.append(signed.raw)
            size += len(signed.raw)
        if not peer.spend(size, now):
            return
        if single and self.me is not None:  # an observer sends records only as a reply (its
            self._send(link, {"t": "record", "record": chunk[0]})  # proof), never one alone
        else:
            self._send(link, {"t": "sync_reply", "from_seq": from_seq, "records": chunk})

    # --- table talk ----------------------------------------------------------------------

    def _on_chat(self, link: LinkId | None, raw: bytes, now: float) -> None:
        """A message from a link (None: our own), kept, held back, or dropped."""
        try:
            verdicts = self.chat.offer(raw, self.head, now)
        except ChatError as exc:
            if link is not None:
                self._close(link, f"bad chat: {exc}")
            return
        self._chat_verdicts(verdicts, link)

    def _chat_verdicts(self, verdicts: list[ChatVerdict], source: LinkId | None) -> None:
        for verdict in verdicts:
            if isinstance(verdict, Heard):
                self._out.append(StoreChat(verdict.signed.raw))
                frame: ChatFrame = {"t": "chat", "message": verdict.signed.raw}
                for link in self.links:
                    if link != source:
                        self._send(link, frame)
                self._out.append(Notice("chat", verdict.line))
            else:
                self._out.append(Notice("muted", (verdict.seat, verdict.why)))

    # --- plumbing ------------------------------------------------------------------------

    def _send(self, link: LinkId, frame: Frame) -> None:
        if self.me is None and frame["t"] not in OBSERVER_FRAMES:
            return  # an observer writes nothing, relays nothing, votes nothing
        peer = self.links.get(link)
        if peer is not None and peer.seat is None and frame["t"] in ("absent", "ack"):
            return  # nobody's vote or ack is an observer's business
        self._out.append(Send(link, frame))

    def _close(self, link: LinkId, reason: str) -> None:
        if self.links.pop(link, None) is not None:
            self._out.append(Close(link, reason[:200]))
            self._orphan_future_of(link)
            if self.at.held is not None and self.at.held[2] == link:
                self.at.held = None

    def _drain(self) -> list[Action]:
        out, self._out = self._out, []
        return out


__all__ = [
    "Action",
    "Close",
    "LinkId",
    "Notice",
    "PeerLink",
    "PeerProtocol",
    "ProtocolConfig",
    "Remember",
    "Rewrite",
    "Send",
    "Store",
    "StoreChat",
]
