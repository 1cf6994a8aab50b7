"""Sealed values: only the receiver reads them, they are bound to their record, and they open."""

from __future__ import annotations

import dataclasses

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import BadKey, BadOpening, MalformedValue, SealError
from spycraft.crypto.seal import (
    SealBinding,
    Sealed,
    SealOpening,
    check_opening,
    seal,
    seal_public_key,
    unseal,
)

RECEIVER = bytes(range(32))
OTHER = bytes(range(1, 33))
BINDING = SealBinding(table=b"table-1", seq=12, sender=0, receiver=2, purpose="token")


def test_the_receiver_reads_the_sealed_value(entropy: SeededEntropy) -> None:
    sealed, _ = seal({"card": b"x", "n": 3}, seal_public_key(RECEIVER), BINDING, entropy)
    assert unseal(Sealed.decode(sealed.encode()), RECEIVER, BINDING) == {"card": b"x", "n": 3}


def test_another_seat_cannot_read_it(entropy: SeededEntropy) -> None:
    sealed, _ = seal(b"secret", seal_public_key(RECEIVER), BINDING, entropy)
    with pytest.raises(SealError):
        unseal(sealed, OTHER, BINDING)


@pytest.mark.parametrize("change", [{"seq": 13}, {"table": b"table-2"}, {"sender": 1},
                                    {"receiver": 3}, {"purpose": "other"}])
def test_a_seal_moved_to_another_record_does_not_open(entropy: SeededEntropy,
                                                      change: dict[str, object]) -> None:
    sealed, _ = seal(b"secret", seal_public_key(RECEIVER), BINDING, entropy)
    with pytest.raises(SealError):
        unseal(sealed, RECEIVER, dataclasses.replace(BINDING, **change))  # type: ignore[arg-type]


def test_tampered_ciphertext_or_commitment_is_rejected(entropy: SeededEntropy) -> None:
    sealed, _ = seal(b"secret", seal_public_key(RECEIVER), BINDING, entropy)
    flipped = bytes([sealed.ciphertext[0] ^ 1]) + sealed.ciphertext[1:]
    with pytest.raises(SealError):
        unseal(dataclasses.replace(sealed, ciphertext=flipped), RECEIVER, BINDING)
    with pytest.raises(SealError):
        unseal(dataclasses.replace(sealed, commitment=bytes(32)), RECEIVER, BINDING)


def test_the_final_opening_checks_out_and_a_false_one_is_caught(entropy: SeededEntropy) -> None:
    sealed, opening = seal(b"secret", seal_public_key(RECEIVER), BINDING, entropy)
    check_opening(sealed, SealOpening.decode(opening.encode()), seal_public_key(RECEIVER), BINDING)
    with pytest.raises(SealError) as caught:
        check_opening(sealed, dataclasses.replace(opening, value=b"other"),
                      seal_public_key(RECEIVER), BINDING)
    assert isinstance(caught.value.attribute(0, 12), BadOpening)


def test_a_seal_the_receiver_could_not_read_is_proven_at_the_final_reveal(
        entropy: SeededEntropy) -> None:
    # the sender commits to one value but encrypts garbage: the opening cannot reproduce it
    sealed, opening = seal(b"secret", seal_public_key(RECEIVER), BINDING, entropy)
    garbage = dataclasses.replace(sealed, ciphertext=bytes(len(sealed.ciphertext)))
    with pytest.raises(SealError):
        unseal(garbage, RECEIVER, BINDING)
    with pytest.raises(SealError):
        check_opening(garbage, opening, seal_public_key(RECEIVER), BINDING)


def test_low_order_keys_and_garbage_are_rejected(entropy: SeededEntropy) -> None:
    with pytest.raises(BadKey, match="table key .*small order"):
        seal(b"x", bytes(32), BINDING, entropy)
    sealed, _ = seal(b"x", seal_public_key(RECEIVER), BINDING, entropy)
    with pytest.raises(SealError):
        unseal(dataclasses.replace(sealed, ephemeral=bytes(32)), RECEIVER, BINDING)
    with pytest.raises(MalformedValue, match="ephemeral table key"):
        Sealed.decode([bytes(32), sealed.ciphertext, sealed.commitment])
    for bad in (None, [b"x", b"y", b"z"], [bytes(32), b"short", bytes(32)]):
        with pytest.raises(MalformedValue):
            Sealed.decode(bad)
