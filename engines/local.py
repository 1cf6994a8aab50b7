"""Playing a whole table inside one process: selfplay, tests and benchmarks.

Every record still goes the full way: the seat builds and signs it, and the table engine
verifies the signature, the chain and the rules before it is appended. Only the network is
missing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import (
    Genesis,
    SignedGenesis,
    SignedRecord,
    assemble_genesis,
    genesis_signature,
)
from spycraft.crypto.transcript import Transcript
from spycraft.engines.agent import Agent
from spycraft.engines.registry import Definition
from spycraft.engines.seat import BEACON_LENGTH, TableSeatOf, seat_keys
from spycraft.engines.table import Table, TableState

S = TypeVar("S")  # the game's state
V = TypeVar("V")  # what one seat of it knows


@dataclass
class LocalTable(Generic[S, V]):
    """Every seat of one table of a game of state ``S`` whose seats know a ``V``."""

    definition: Definition[S, V]
    table: Table[S]
    genesis: SignedGenesis
    seats: list[TableSeatOf[S, V]]
    state: TableState[S]
    records: list[SignedRecord] = field(default_factory=list)

    @property
    def transcript(self) -> Transcript:
        return Transcript(self.genesis, tuple(self.records))

    def step(self, agents: Sequence[Agent]) -> SignedRecord | None:
        turn = self.table.expect(self.state)
        if turn is None:
            return None
        signed = self.seats[turn.seat].build(self.state, agents[turn.seat])
        self.state = self.table.apply(self.state, signed)
        self.records.append(signed)
        return signed

    def run(
        self,
        agents: Sequence[Agent],
        on_record: Callable[[SignedRecord, TableState[S]], None] | None = None,
        max_records: int = 100_000,
    ) -> TableState[S]:
        for _ in range(max_records):
            signed = self.step(agents)
            if signed is None:
                return self.state
            if on_record is not None:
                on_record(signed, self.state)
        raise RuntimeError("the game did not end")


def new_local_table(
    definition: Definition[S, V],
    options: Mapping[str, object],
    players: int,
    entropy: Entropy,
    names: Sequence[str] | None = None,
) -> LocalTable[S, V]:
    """Seat ``players`` identities whose secrets all come from ``entropy``, and sign a genesis."""
    identities = [Identity(entropy.child(f"identity/{i}").take(32)) for i in range(players)]
    masters = [entropy.child(f"master/{i}").take(32) for i in range(players)]
    names = list(names) if names is not None else [f"seat{i}" for i in range(players)]
    genesis = Genesis(
        protocol=PROTOCOL_VERSION,
        table=entropy.child("table").take(16),
        game=definition.name,
        options=dict(options),
        seats=tuple(
            seat_keys(names[i], identities[i], masters[i], BEACON_LENGTH) for i in range(players)
        ),
        beacon_length=BEACON_LENGTH,
    )
    signed = assemble_genesis(
        genesis, tuple(genesis_signature(genesis, ident) for ident in identities)
    )
    table = definition.table()
    state = table.start(signed)
    seats = [
        TableSeatOf(table, genesis, i, identities[i], masters[i], definition.seat)
        for i in range(players)
    ]
    return LocalTable(definition, table, signed, seats, state)
