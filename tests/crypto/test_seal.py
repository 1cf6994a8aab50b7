"""Seals: proven when sealed, so a bad one is refused at once and a good one always opens.

Asked as a cheater would: what does the sender, the receiver, a third seat, or the sender and
the receiver together gain from each field of a seal? The sender cannot seal a wrong value, to
the wrong seat, for another record or a value outside the set; the receiver always opens what
was proven (it can never claim a seal is bad); a third seat reads nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolkit_table import Table

from spycraft.crypto import linear
from spycraft.crypto.elgamal import Ciphertext, prove_plaintext, verify_plaintext
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import GENERATOR, IDENTITY, ORDER, Point, Scalar
from spycraft.crypto.proofs import prove_encrypts_one_of
from spycraft.crypto.seal import (
    SealedChoice,
    SealedShare,
    open_sealed_choice,
    open_sealed_share,
    seal_choice,
    seal_share,
    verify_sealed_choice,
    verify_sealed_share,
)

Ctx = Callable[..., bytes]
CARD = Point.hash_to("test/card", "c1 of card 3")
OTHER_CARD = Point.hash_to("test/card", "c1 of card 4")
BULLET, MEDKIT, THIRD = (Point.hash_to("test/tool", k) for k in ("B", "M", "X"))
TOOLS = (BULLET, MEDKIT)

# --- sealed shares (a reveal token passed privately) ------------------------------------------


def test_the_receiver_opens_the_senders_true_token(table3: Table, entropy: SeededEntropy,
                                                   context: Ctx) -> None:
    x0, x2 = table3.secrets[0], table3.secrets[2]
    sealed = seal_share(x0, CARD, table3.publics[2], context(0, 40), entropy)
    again = SealedShare.decode(decode(encode(sealed.encode())))
    verify_sealed_share(again, CARD, table3.publics[0], table3.publics[2], context(0, 40))
    assert open_sealed_share(again, x2) == CARD * x0


def test_the_same_token_sealed_twice_looks_different(table3: Table, context: Ctx) -> None:
    one = seal_share(table3.secrets[0], CARD, table3.publics[2], context(0, 40), SeededEntropy(1))
    two = seal_share(table3.secrets[0], CARD, table3.publics[2], context(0, 40), SeededEntropy(2))
    assert (one.e1, one.e2) != (two.e1, two.e2)


def test_a_seat_replaying_its_entropy_never_seals_twice_with_one_randomness(
        table3: Table, context: Ctx) -> None:
    """A record rebuilt from the same deterministic stream for another receiver or card (a
    rollback) draws another k: one k under one key would link the two tokens."""
    x = table3.secrets[0]
    seals = [seal_share(x, base, table3.publics[to], context(0, 40), SeededEntropy(7))
             for base, to in ((CARD, 2), (CARD, 1), (OTHER_CARD, 2))]
    assert len({s.e1 for s in seals}) == 3
    choices = [seal_choice(TOOLS, i, table3.publics[0], table3.publics[to], context(0, 12),
                           SeededEntropy(7)) for i, to in ((0, 1), (1, 1), (0, 2))]
    assert len({c.c1 for c in choices}) == 3
    again = seal_share(x, CARD, table3.publics[2], context(0, 40), SeededEntropy(7))
    assert again == seals[0]  # the same record rebuilt is the same bytes


def test_nobody_but_the_receiver_reads_the_token(table3: Table, entropy: SeededEntropy,
                                                 context: Ctx) -> None:
    sealed = seal_share(table3.secrets[0], CARD, table3.publics[2], context(0, 40), entropy)
    token = CARD * table3.secrets[0]
    for seat in (0, 1):
        assert open_sealed_share(sealed, table3.secrets[seat]) != token
    assert token.encode() not in encode(sealed.encode())


def test_a_seal_of_the_wrong_token_is_refused(table3: Table, entropy: SeededEntropy,
                                              context: Ctx) -> None:
    """Seat 0 seals seat 1's token, or its own token of another card, or a random point."""
    ctx = context(0, 40)
    receiver = table3.publics[2]
    of_another_seat = seal_share(table3.secrets[1], CARD, receiver, ctx, entropy)
    of_another_card = seal_share(table3.secrets[0], OTHER_CARD, receiver, ctx, entropy)
    for sealed in (of_another_seat, of_another_card):
        with pytest.raises(ProofError):
            verify_sealed_share(sealed, CARD, table3.publics[0], receiver, ctx)
    honest = seal_share(table3.secrets[0], CARD, receiver, ctx, entropy)
    garbage = replace(honest, e2=honest.e2 + Point.hash_to("test", "garbage"))
    with pytest.raises(ProofError):
        verify_sealed_share(garbage, CARD, table3.publics[0], receiver, ctx)


def test_a_seal_to_the_wrong_receiver_is_refused(table3: Table, entropy: SeededEntropy,
                                                 context: Ctx) -> None:
    ctx = context(0, 40)
    to_seat_1 = seal_share(table3.secrets[0], CARD, table3.publics[1], ctx, entropy)
    with pytest.raises(ProofError):
        verify_sealed_share(to_seat_1, CARD, table3.publics[0], table3.publics[2], ctx)


def test_a_seal_replayed_in_another_record_or_by_another_seat_is_refused(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    sealed = seal_share(table3.secrets[0], CARD, table3.publics[2], context(0, 40), entropy)
    for other in (context(0, 41), context(1, 40), context(0, 40, "another kind")):
        with pytest.raises(ProofError):
            verify_sealed_share(sealed, CARD, table3.publics[0], table3.publics[2], other)


def test_every_field_of_a_sealed_share_is_bound(table3: Table, entropy: SeededEntropy,
                                                context: Ctx) -> None:
    ctx = context(0, 40)
    sealed = seal_share(table3.secrets[0], CARD, table3.publics[2], ctx, entropy)
    other = seal_share(table3.secrets[0], CARD, table3.publics[2], ctx, SeededEntropy(9))
    one = Scalar.from_int(1)
    tampered = [
        replace(sealed, e1=other.e1),
        replace(sealed, e2=other.e2),
        replace(sealed, e1=other.e1, e2=other.e2),
        replace(sealed, proof=other.proof),
        replace(sealed, proof=replace(sealed.proof, challenge=sealed.proof.challenge + one)),
        replace(sealed, proof=replace(sealed.proof, responses=sealed.proof.responses[::-1])),
    ]
    for bad in tampered:
        with pytest.raises(ProofError):
            verify_sealed_share(bad, CARD, table3.publics[0], table3.publics[2], ctx)


def test_a_sender_that_knows_its_randomness_cannot_seal_in_clear(table3: Table) -> None:
    """E1 = identity (k = 0) would publish the token: refused as it is decoded."""
    token = CARD * table3.secrets[0]
    proof = [bytes(32)] * 3
    with pytest.raises(MalformedValue):
        SealedShare.decode([IDENTITY.encode(), token.encode(), proof])


@pytest.mark.parametrize("value", [
    None, b"garbage", [], [bytes(32), bytes(32)], [b"\xff" * 32, bytes(32), [bytes(32)] * 3],
    [GENERATOR.encode(), bytes(32), [bytes(32)] * 2],
])
def test_garbage_is_not_a_sealed_share(value: object) -> None:
    with pytest.raises(MalformedValue):
        SealedShare.decode(value)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, ORDER - 1), st.integers(1, ORDER - 1), st.binary(max_size=8))
def test_whatever_passes_the_check_opens_to_the_senders_token(x: int, y: int, tag: bytes
                                                              ) -> None:
    """The receiver can never claim a seal does not open: a verified seal always holds x*B."""
    sender, receiver = Scalar.from_int(x), Scalar.from_int(y)
    card = Point.hash_to("test/card", tag)
    sealed = seal_share(sender, card, Point.base_mul(receiver), tag, SeededEntropy(tag))
    verify_sealed_share(sealed, card, Point.base_mul(sender), Point.base_mul(receiver), tag)
    assert open_sealed_share(sealed, receiver) == card * sender


# --- sealed choices (a tool given face down) --------------------------------------------------


def test_the_receiver_and_later_the_senders_key_read_the_chosen_tool(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    ctx = context(0, 12)
    sealed = seal_choice(TOOLS, 1, table3.publics[0], table3.publics[2], ctx, entropy)
    again = SealedChoice.decode(decode(encode(sealed.encode())), 2)
    verify_sealed_choice(again, TOOLS, table3.publics[0], table3.publics[2], ctx)
    assert open_sealed_choice(again, table3.secrets[2], TOOLS) == 1
    assert open_sealed_choice(again, table3.secrets[0], TOOLS, as_sender=True) == 1
    with pytest.raises(MalformedValue):
        open_sealed_choice(again, table3.secrets[1], TOOLS)


def test_a_tool_of_a_third_kind_is_refused(table3: Table, entropy: SeededEntropy,
                                           context: Ctx) -> None:
    ctx = context(0, 12)
    third = seal_choice((BULLET, THIRD), 1, table3.publics[0], table3.publics[2], ctx, entropy)
    with pytest.raises(ProofError):
        verify_sealed_choice(third, TOOLS, table3.publics[0], table3.publics[2], ctx)


def test_a_tool_that_reads_one_way_for_the_receiver_and_another_for_the_sender_is_refused(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    """The sender keeps a Bullet in its own column and gives the receiver a Medkit."""
    ctx = context(0, 12)
    sender, receiver = table3.publics[0], table3.publics[2]
    r = Scalar.random(entropy)
    c1 = Point.base_mul(r)
    to_sender = BULLET + sender * r
    to_receiver = MEDKIT + receiver * r
    one_of = prove_encrypts_one_of(sender, c1, to_sender, TOOLS, 0, r, ctx, entropy)
    relation = linear.Relation("seal/choice", 1, (
        linear.Equation(c1, ((0, GENERATOR),)),
        linear.Equation(to_receiver - to_sender, ((0, receiver - sender),)),
    ))
    same = linear.prove(relation, (r,), ctx, entropy)
    split = SealedChoice(c1, to_receiver, to_sender, one_of, same)
    with pytest.raises(ProofError):
        verify_sealed_choice(split, TOOLS, sender, receiver, ctx)


def test_a_tool_sealed_to_another_seat_or_replayed_is_refused(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    sealed = seal_choice(TOOLS, 0, table3.publics[0], table3.publics[1], context(0, 12), entropy)
    with pytest.raises(ProofError):
        verify_sealed_choice(sealed, TOOLS, table3.publics[0], table3.publics[2], context(0, 12))
    with pytest.raises(ProofError):  # another seat claims it as its own
        verify_sealed_choice(sealed, TOOLS, table3.publics[2], table3.publics[1], context(2, 12))
    for other in (context(0, 13), context(1, 12)):
        with pytest.raises(ProofError):
            verify_sealed_choice(sealed, TOOLS, table3.publics[0], table3.publics[1], other)


def test_every_field_of_a_sealed_choice_is_bound(table3: Table, entropy: SeededEntropy,
                                                 context: Ctx) -> None:
    ctx = context(0, 12)
    args = (TOOLS, table3.publics[0], table3.publics[2])
    sealed = seal_choice(args[0], 0, args[1], args[2], ctx, entropy)
    other = seal_choice(args[0], 1, args[1], args[2], ctx, SeededEntropy(4))
    for field in ("c1", "to_receiver", "to_sender", "one_of", "same"):
        bad = replace(sealed, **{field: getattr(other, field)})
        with pytest.raises(ProofError):
            verify_sealed_choice(bad, *args, ctx)


@pytest.mark.parametrize("value", [
    None, [bytes(32)] * 5, [GENERATOR.encode()] * 3 + [[[bytes(32)] * 2] * 2, [bytes(32)]],
])
def test_garbage_is_not_a_sealed_choice(value: object) -> None:
    with pytest.raises(MalformedValue):
        SealedChoice.decode(value, 2)


def test_a_seats_two_tools_prove_to_be_one_bullet_and_one_medkit(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    """The sum of a seat's own columns decrypts to B + M under its key: proven without opening
    either; two Bullets cannot be proven so."""
    x, public = table3.secrets[0], table3.publics[0]
    bullet = seal_choice(TOOLS, 0, public, table3.publics[1], context(0, 12), entropy)
    medkit = seal_choice(TOOLS, 1, public, table3.publics[2], context(0, 30), entropy)
    again = seal_choice(TOOLS, 0, public, table3.publics[2], context(0, 30), entropy)
    both = bullet.own + medkit.own
    proof = prove_plaintext(both, x, BULLET + MEDKIT, context(0, 30), entropy)
    verify_plaintext(both, public, BULLET + MEDKIT, proof, context(0, 30))
    twice: Ciphertext = bullet.own + again.own
    false = prove_plaintext(twice, x, BULLET + MEDKIT, context(0, 30), entropy)
    with pytest.raises(ProofError):
        verify_plaintext(twice, public, BULLET + MEDKIT, false, context(0, 30))
    with pytest.raises(ProofError):  # nor by another seat's key, nor in another record
        verify_plaintext(both, table3.publics[1], BULLET + MEDKIT, proof, context(0, 30))
    with pytest.raises(ProofError):
        verify_plaintext(both, public, BULLET + MEDKIT, proof, context(0, 31))
