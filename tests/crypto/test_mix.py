"""Verifiable mix of mission cards: well-formed inputs, proven mixing, proven joint decryption."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from toolkit_table import Table

from spycraft.crypto.deck import Faces
from spycraft.crypto.elgamal import ProvenCiphertext, encrypt, encrypt_one_of
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import ProofError
from spycraft.crypto.group import Scalar
from spycraft.crypto.mix import (
    contribute,
    decryption_shares,
    mix,
    tally,
    verify_contribution,
    verify_decryption_shares,
    verify_mix,
)

Ctx = Callable[..., bytes]
MISSION = Faces.of("mission-card", ["success", "fail"])


def test_a_mission_is_mixed_and_counted(table3: Table, entropy: SeededEntropy,
                                        context: Ctx) -> None:
    plays = {0: "success", 1: "fail", 2: "success"}
    cards = []
    for seat, label in plays.items():
        card = contribute(table3.pk, MISSION, label, context(seat, 50 + seat), entropy)
        card = ProvenCiphertext.decode(decode(encode(card.encode())), 2)
        verify_contribution(table3.pk, MISSION, card, context(seat, 50 + seat))
        cards.append(card.ciphertext)
    current = tuple(cards)
    for seat in range(3):
        out, proof = mix(current, table3.pk, context(seat, 60 + seat), entropy)
        verify_mix(current, out, table3.pk, proof, context(seat, 60 + seat))
        current = out
    shares = []
    for seat, secret in enumerate(table3.secrets):
        mine = decryption_shares(current, secret, context(seat, 70 + seat), entropy)
        verify_decryption_shares(current, table3.publics[seat], mine, context(seat, 70 + seat))
        shares.append([s.share for s in mine])
    assert sorted(tally(current, shares, MISSION)) == ["fail", "success", "success"]


def test_a_card_that_is_neither_success_nor_fail_is_rejected(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    # a cheater encrypts "two fails" (2*Fail) and reuses an honest proof
    honest = encrypt_one_of(table3.pk, MISSION.points, 1, context(0, 50), entropy)
    double = encrypt(table3.pk, MISSION.points[1] + MISSION.points[1], Scalar.random(entropy))
    with pytest.raises(ProofError):
        verify_contribution(table3.pk, MISSION,
                            ProvenCiphertext(double, honest.proof), context(0, 50))
    with pytest.raises(ProofError):  # copying another seat's card under one's own name
        verify_contribution(table3.pk, MISSION, honest, context(1, 51))


def test_a_mix_that_replaces_a_card_and_a_false_share_are_rejected(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    cards = tuple(contribute(table3.pk, MISSION, "fail", context(s, 50), entropy).ciphertext
                  for s in range(2))
    out, proof = mix(cards, table3.pk, context(0, 60), entropy)
    success = encrypt(table3.pk, MISSION.points[0], Scalar.random(entropy))
    with pytest.raises(ProofError):
        verify_mix(cards, (out[0], success), table3.pk, proof, context(0, 60))
    shares = decryption_shares(out, table3.secrets[0], context(0, 70), entropy)
    with pytest.raises(ProofError):
        verify_decryption_shares(out, table3.publics[1], shares, context(0, 70))
    with pytest.raises(ProofError):
        verify_decryption_shares(out, table3.publics[0], shares[:1], context(0, 70))

