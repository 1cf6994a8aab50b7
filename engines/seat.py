"""The private side of one seat at one table: its secrets, and how it builds its records.

Theory of operation: a seat holds one 32-byte master secret per table (drawn from the OS's
CSPRNG in real play, from the seed in selfplay) and derives every secret from it: its X25519
table key, its beacon hash chain, and each commitment nonce. Choices that are private and not
derivable (a deployment, a vote before it is opened) are written to ``memo`` before the record
that commits to them is sent; the p2p layer persists master and memo (mode 0600) so a crashed
peer resumes with exactly the secrets it had.

``TableSeat.build`` answers ``Table.expect``: beacon pre-images and the result record are
automatic; every other kind goes to the game's seat (its ``PrivateSide``, a ``GameSeat`` of the
kit), which asks its agent when the rulebook gives the player a choice. ``TableSeatOf`` is typed
by the game's state and its seat's view; ``TableSeat`` is the same for whichever game, as the
peer protocol holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from spycraft.crypto import beacon
from spycraft.crypto.entropy import derive_secret
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import Genesis, Record, SeatKeys, SignedRecord, sign_record
from spycraft.engines import absence
from spycraft.engines.agent import Agent
from spycraft.engines.schema import Body
from spycraft.engines.table import Result, Table, TableState, Turn

BEACON_LENGTH = 256
S = TypeVar("S")  # the state of the game a table plays
V = TypeVar("V")  # what one seat of it knows
S_contra = TypeVar("S_contra", contravariant=True)
V_co = TypeVar("V_co", covariant=True)


def table_key_secret(master: bytes) -> bytes:
    return derive_secret(master, "table-key")


def table_key_public(master: bytes) -> bytes:
    key = X25519PrivateKey.from_private_bytes(table_key_secret(master))
    return key.public_key().public_bytes_raw()


def beacon_chain(master: bytes, length: int) -> tuple[bytes, ...]:
    return beacon.build_chain(derive_secret(master, "beacon"), length)


def seat_keys(name: str, identity: Identity, master: bytes, beacon_length: int) -> SeatKeys:
    """The public keys a seat brings to the genesis."""
    return SeatKeys(
        name=name,
        identity=identity.public,
        table_key=table_key_public(master),
        beacon=beacon_chain(master, beacon_length)[0],
    )


Memo = dict[str, Any]  # each a CBOR value its game wrote and reads back under a key of its own
"""A seat's private choices by key, persisted with its master secret."""


@dataclass
class SeatContext:
    """What a game's seat gets: who it is, its secrets, and its memo of private choices."""

    genesis: Genesis
    index: int
    master: bytes
    memo: Memo
    seq: int = 0  # the seq of the record this seat is building (set by ``TableSeat.build``)
    prev: bytes = b""  # and its prev: with ``seq``, the place it is built for

    def secret(self, *label: str | int) -> bytes:
        return derive_secret(self.master, "game", *label)


class PrivateSide(Protocol[S_contra, V_co]):
    """What a table seat needs of its game's private side (the kit's ``engines.game.GameSeat``
    is the one every game subclasses), for a game of state ``S`` whose seat knows a ``V``."""

    def build(self, state: S_contra, turn: Turn, agent: Agent) -> tuple[str, Body]:
        """(kind, body) of this seat's next record; ``turn.seat`` is this seat."""
        ...

    def view(self, state: S_contra) -> V_co:
        """What this seat sees of the game state (its private knowledge included)."""
        ...


class TableSeatOf(Generic[S, V]):
    """One seat at a table of a game of state ``S`` whose seat knows a ``V``."""

    def __init__(
        self,
        table: Table[S],
        genesis: Genesis,
        index: int,
        identity: Identity,
        master: bytes,
        game_seat: Callable[[SeatContext], PrivateSide[S, V]],
        memo: Memo | None = None,
    ) -> None:
        self.table = table
        self.index = index
        self.identity = identity
        self.context = SeatContext(genesis, index, master, memo if memo is not None else {})
        self.game = game_seat(self.context)
        self._chain = beacon_chain(master, genesis.beacon_length)

    @property
    def memo(self) -> Memo:
        return self.context.memo

    def view(self, state: TableState[S]) -> V:
        """What this seat sees: its game seat's view of the game state."""
        return self.game.view(state.game)

    def my_turn(self, state: TableState[S]) -> Turn | None:
        turn = self.table.expect(state)
        return turn if turn is not None and turn.seat == self.index else None

    def build(self, state: TableState[S], agent: Agent) -> SignedRecord:
        turn = self.my_turn(state)
        if turn is None:
            raise RuntimeError(f"seat {self.index} was asked to write out of turn")
        need = self.table.need(state)
        if turn.kinds == ("beacon",):
            kind, body = "beacon", {"preimage": self._chain[state.beacon_rounds + 1]}
        elif isinstance(need, Result):
            kind, body = "result", need.to_cbor()
        else:
            kind, body = self.game_body(state, turn, agent)
        return self.sign(state, kind, body)

    def game_body(self, state: TableState[S], turn: Turn, agent: Agent) -> tuple[str, Body]:
        """(kind, body) the game's seat builds for ``turn``, the next record after ``state``
        (unsigned: tests change it to make a cheat)."""
        self.context.seq, self.context.prev = state.seq + 1, state.link
        return self.game.build(state.game, turn, agent)

    def sign_result(self, state: TableState[S]) -> SignedRecord | None:
        """The result record, when the game is over (any seat may write it)."""
        need = self.table.need(state)
        return self.sign(state, "result", need.to_cbor()) if isinstance(need, Result) else None

    def absence_vote(self, state: TableState[S]) -> bytes:
        """This seat's signed vote that the seat expected next is absent (``engines.absence``)."""
        turn = self.table.expect(state)
        if turn is None or turn.seat == self.index:
            raise RuntimeError(f"seat {self.index} has nobody to declare absent")
        return absence.sign_vote(
            self.identity, state.genesis.table, state.seq + 1, state.link, turn.seat, self.index
        )

    def sign_abandon(self, state: TableState[S], votes: dict[int, bytes]) -> SignedRecord:
        """The abandon record of the seat expected next, carrying the absence votes held."""
        turn = self.table.expect(state)
        assert turn is not None
        return self.sign(state, "abandon", absence.abandon_body(turn.seat, votes))

    def sign(self, state: TableState[S], kind: str, body: Body) -> SignedRecord:
        record = Record(state.genesis.table, state.seq + 1, state.link, self.index, kind, body)
        return sign_record(record, self.identity)


TableSeat = TableSeatOf[Any, Any]  # whichever game: the peers serve every game alike
"""A seat at a table of a game the peers and the local table hold without knowing which."""
