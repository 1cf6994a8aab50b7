"""A genesis that gives a seat a key of small order is refused: by the parser, the table, the audit.

The genesis is the seed-7 Spies & Lies genesis with one seat's key replaced, signed by every seat
as a real table would sign it. With the identity point as seat 1's identity key, seat 1's
"signature" is the universal one (R = identity, S = 0), which a cofactorless verifier accepts
for any message: the attack issue 7 describes (anyone could then sign for seat 1).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import cbor2
import pytest

from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import BadKey, MalformedRecord
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import ALG_EDDSA, COSE_SIGN_TAG, HEADER_ALG, HEADER_KID, parse_genesis
from spycraft.crypto.transcript import Transcript
from spycraft.engines import registry
from spycraft.engines.audit import audit
from spycraft.engines.local import new_local_table

SEED = 7
IDENTITY_POINT = (1).to_bytes(32, "little")  # the Ed25519 identity element, of order 1
UNIVERSAL_SIGNATURE = IDENTITY_POINT + bytes(32)  # R = identity, S = 0
ZERO_TABLE_KEY = bytes(32)  # X25519 u = 0, of order 4 (its shared secret is always zero)


def seat_identity(seat: int) -> Identity:
    """A seat's signing key, derived the way ``new_local_table`` derives it from the seed."""
    return Identity(SeededEntropy(SEED).child("table").child(f"identity/{seat}").take(32))


def honest_genesis_payload() -> dict[str, Any]:
    definition = registry.load("spies-and-lies")
    local = new_local_table(definition, definition.options(), 2,
                            SeededEntropy(SEED).child("table"))
    payload: dict[str, Any] = decode(local.genesis.genesis.payload)
    return payload


def signed_genesis(payload: dict[str, Any], signatures: dict[int, bytes]) -> bytes:
    """A COSE_Sign genesis over ``payload``: each seat signs it, unless ``signatures`` says."""
    body = encode(payload)
    entries = []
    for seat, keys in enumerate(payload["seats"]):
        protected = encode({HEADER_ALG: ALG_EDDSA, HEADER_KID: keys["identity"]})
        signature = signatures.get(seat) or seat_identity(seat).sign(
            encode(["Signature", b"", protected, b"", body]))
        entries.append([protected, {}, signature])
    raw: bytes = encode(cbor2.CBORTag(COSE_SIGN_TAG, [b"", {}, body, entries]))
    return raw


def with_seat_key(seat: int, field: str, key: bytes) -> dict[str, Any]:
    payload = honest_genesis_payload()
    seats = [dict(s) for s in payload["seats"]]
    seats[seat][field] = key
    return {**payload, "seats": seats}


SMALL_ORDER_IDENTITY = signed_genesis(with_seat_key(1, "identity", IDENTITY_POINT),
                                      {1: UNIVERSAL_SIGNATURE})
ZERO_TABLE_KEY_GENESIS = signed_genesis(with_seat_key(0, "table_key", ZERO_TABLE_KEY), {})
CASES = {
    "seat 1's identity key is the identity point": (SMALL_ORDER_IDENTITY, 1, "identity key"),
    "seat 0's table key is zero": (ZERO_TABLE_KEY_GENESIS, 0, "table key"),
}


def test_the_honest_genesis_rebuilt_here_parses() -> None:
    parse_genesis(signed_genesis(honest_genesis_payload(), {}))


@pytest.mark.parametrize("case", CASES)
def test_the_genesis_parser_refuses_a_seat_with_a_small_order_key(case: str) -> None:
    raw, seat, which = CASES[case]
    with pytest.raises(MalformedRecord) as caught:
        parse_genesis(raw)
    assert (caught.value.seat, caught.value.seq) == (seat, 0)
    assert f"seat {seat}'s {which}" in str(caught.value)
    assert isinstance(caught.value.__cause__, BadKey)
    with pytest.raises(MalformedRecord):
        Transcript.from_bytes(raw)


@pytest.mark.parametrize("case", CASES)
def test_the_audit_calls_such_a_genesis_invalid_and_names_the_seat_and_key(case: str) -> None:
    raw, seat, which = CASES[case]
    report = audit(raw)
    assert not report.valid and report.error is not None
    assert (report.error.seat, report.error.seq) == (seat, 0)
    text = report.describe()
    assert text.startswith("INVALID spies-and-lies: 0 records after genesis")
    assert f"seat {seat}'s {which}" in text
    assert "small order" in text


def test_spycraft_audit_of_such_a_genesis_exits_1_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "bad-key.cbor"
    path.write_bytes(SMALL_ORDER_IDENTITY)
    done = subprocess.run([sys.executable, "-m", "spycraft", "audit", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("INVALID spies-and-lies")
    assert "seat 1's identity key (Ed25519)" in done.stdout
    assert "Traceback" not in done.stderr
