"""The turn timeout is the table's: a genesis field every seat signs, the same for every peer,
which a session uses whatever its own configuration says (issue 18, attack 8)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cbor2
import pytest
import trio

from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedRecord
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import (
    DEFAULT_TURN_TIMEOUT_MS,
    MAX_TURN_TIMEOUT_MS,
    assemble_genesis,
    genesis_signature,
    parse_genesis,
)
from spycraft.engines import registry
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.p2p.lobby import MIN_TURN_TIMEOUT_MS, turn_timeout_ms
from spycraft.p2p.session import SessionConfig
from tests.p2p.mesh import mesh


def _table() -> tuple[LocalTable, list[Identity]]:
    local = new_local_table(registry.load("spies-and-lies"), {}, 2, SeededEntropy(3))
    identities = [Identity(SeededEntropy(3).child(f"identity/{i}").take(32)) for i in range(2)]
    return local, identities


def test_the_turn_timeout_is_signed_in_the_genesis_and_read_back() -> None:
    local, identities = _table()
    genesis = replace(local.genesis.genesis, turn_timeout_ms=7_500)
    signed = assemble_genesis(genesis, tuple(genesis_signature(genesis, i) for i in identities))
    assert parse_genesis(signed.raw).genesis.turn_timeout == 7.5
    payload = decode(decode(signed.raw).value[2])
    assert payload["turn_timeout_ms"] == 7_500
    # every seat signed it: another value is another genesis, whose signatures fail
    other = replace(genesis, turn_timeout_ms=1_000)
    assert other.payload != genesis.payload
    assert local.genesis.genesis.turn_timeout_ms == DEFAULT_TURN_TIMEOUT_MS


@pytest.mark.parametrize("value", [0, MAX_TURN_TIMEOUT_MS + 1, -1, True, "300"])
def test_a_genesis_with_a_turn_timeout_out_of_range_is_refused(value: object) -> None:
    local, _ = _table()
    cose = decode(local.genesis.raw)
    payload = dict(decode(cose.value[2]))
    payload["turn_timeout_ms"] = value
    parts = list(cose.value)
    parts[2] = encode(payload)
    with pytest.raises(MalformedRecord, match="turn_timeout_ms"):
        parse_genesis(encode(cbor2.CBORTag(98, parts)))


def test_an_opener_proposes_a_playable_timeout_in_whole_milliseconds() -> None:
    assert turn_timeout_ms(SessionConfig(turn_timeout=2.5)) == 2_500
    assert turn_timeout_ms(SessionConfig(turn_timeout=0.01)) == MIN_TURN_TIMEOUT_MS
    assert turn_timeout_ms(SessionConfig(turn_timeout=1e9)) == MAX_TURN_TIMEOUT_MS


def test_a_session_counts_the_tables_timeout_whatever_its_own_config_says(tmp_path: Path) -> None:
    async def main() -> None:
        sessions = await mesh(tmp_path, 2, timeout_ms=7_000,
                              config=SessionConfig(turn_timeout=300.0))
        for session in sessions:
            assert session.config.turn_timeout == 7.0
            assert session.protocol.config.turn_timeout == 7.0
            await session.listener.aclose()

    trio.run(main)


def test_the_audit_says_how_long_each_seat_had() -> None:
    local, _ = _table()
    agents = [registry.load("spies-and-lies").bots["random"](SeededEntropy(5), i)
              for i in range(2)]
    while local.state.result is None:
        local.step(agents)
    report = audit_transcript(local.transcript)
    assert "turn timeout: 300 s (the table's, in the genesis)" in report.describe()
