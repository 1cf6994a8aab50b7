"""Spies' recognition: spies learn exactly the spies; a look at one role does not give away S."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from toolkit_table import Table

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import ProofError
from spycraft.crypto.recognition import (
    RESISTANCE,
    SPY,
    Contribution,
    RoleCard,
    audit_tags,
    contribute,
    look,
    read_card,
    recognise,
    resistance_tag,
    role_deck,
    role_tokens,
    spy_tag,
    verify_contribution,
    verify_role_tokens,
)
from spycraft.crypto.shuffle import shuffle_rows_and_prove, verify_shuffle_rows

Ctx = Callable[..., bytes]
TABLE_CONTEXT = b"table-1|recognition"


def deal(table: Table, entropy: SeededEntropy, context: Ctx, spies: int = 2
         ) -> tuple[tuple[RoleCard, ...], list[tuple[str, object]], list[list[object]]]:
    n = len(table.secrets)
    contributions = []
    for seat in range(n):
        c = contribute(table.pk, context(seat, 100 + seat), entropy)
        verify_contribution(Contribution.decode(c.encode()), context(seat, 100 + seat))
        contributions.append(c)
    cards = role_deck(contributions, n - spies, spies)
    for seat in range(n):
        out, proof = shuffle_rows_and_prove(cards, table.pk, context(seat, 110 + seat), entropy)
        verify_shuffle_rows(cards, out, table.pk, proof, context(seat, 110 + seat))
        cards = out
    # card j goes to seat j: every other seat publishes proven tokens for it
    public: list[list[object]] = [[None] * n for _ in range(n)]
    for owner in range(n):
        for seat in range(n):
            if seat != owner:
                toks = role_tokens(cards[owner], table.secrets[seat], context(seat, 120), entropy)
                verify_role_tokens(cards[owner], table.publics[seat], toks, context(seat, 120))
                public[owner][seat] = toks
    readings = []
    for owner in range(n):
        toks = [t for t in public[owner] if t is not None]
        r = read_card(cards[owner], table.secrets[owner], [t[0].share for t in toks],  # type: ignore[index]
                      [t[1].share for t in toks])  # type: ignore[index]
        readings.append((r.role, r.spy_key))
    return cards, readings, public


def test_spies_recognise_exactly_each_other(table5: Table, entropy: SeededEntropy,
                                            context: Ctx) -> None:
    _, readings, _ = deal(table5, entropy, context)
    spies = {seat for seat, (role, _) in enumerate(readings) if role == SPY}
    assert len(spies) == 2
    keys = {key for role, key in readings if role == SPY}
    assert len(keys) == 1  # every spy learned the same S
    (spy_key,) = keys
    tags = [spy_tag(spy_key, seat, TABLE_CONTEXT) if seat in spies  # type: ignore[arg-type]
            else resistance_tag(entropy) for seat in range(5)]
    assert recognise(spy_key, tags, TABLE_CONTEXT) == spies  # type: ignore[arg-type]
    roles = [role for role, _ in readings]
    assert audit_tags(roles, spy_key, tags, TABLE_CONTEXT) == ()  # type: ignore[arg-type]


def test_a_spy_that_hides_from_its_team_is_named_at_the_final_reveal(
        table5: Table, entropy: SeededEntropy, context: Ctx) -> None:
    _, readings, _ = deal(table5, entropy, context)
    spies = sorted(seat for seat, (role, _) in enumerate(readings) if role == SPY)
    spy_key = readings[spies[0]][1]
    tags = [spy_tag(spy_key, seat, TABLE_CONTEXT) if seat == spies[0]  # type: ignore[arg-type]
            else resistance_tag(entropy) for seat in range(5)]
    roles = [role for role, _ in readings]
    assert audit_tags(roles, spy_key, tags, TABLE_CONTEXT) == (spies[1],)  # type: ignore[arg-type]


def test_a_look_at_a_spy_shows_the_role_but_not_the_spy_key(
        table5: Table, entropy: SeededEntropy, context: Ctx) -> None:
    cards, readings, public = deal(table5, entropy, context)
    spy = next(seat for seat, (role, _) in enumerate(readings) if role == SPY)
    # the owner gives the viewer its token for the face column only (sealed, in a real game)
    own = role_tokens(cards[spy], table5.secrets[spy], context(spy, 130), entropy)[0]
    face_tokens = [own.share, *(t[0].share for t in public[spy] if t is not None)]  # type: ignore[index]
    assert look(cards[spy], face_tokens) == SPY
    # the key column still lacks the owner's token: with the public ones alone it is no point
    # any tag was made with
    key_tokens = [t[1].share for t in public[spy] if t is not None]  # type: ignore[index]
    from spycraft.crypto.elgamal import combine
    assert combine(cards[spy][1], key_tokens) != readings[spy][1]


def test_resistance_cards_and_readings(table5: Table, entropy: SeededEntropy,
                                       context: Ctx) -> None:
    _, readings, _ = deal(table5, entropy, context)
    assert sorted(role for role, _ in readings) == [RESISTANCE] * 3 + [SPY] * 2
    assert all(key is None for role, key in readings if role == RESISTANCE)


def test_a_contribution_copied_or_mauled_from_another_seat_is_rejected(
        table5: Table, entropy: SeededEntropy, context: Ctx) -> None:
    honest = contribute(table5.pk, context(0, 100), entropy)
    with pytest.raises(ProofError):  # seat 1 copies seat 0's contribution
        verify_contribution(honest, context(1, 101))
    # seat 1 tries to cancel seat 0's share: it would need the randomness of -c1
    negated = Contribution(type(honest.ciphertext)(-honest.ciphertext.c1,
                                                   -honest.ciphertext.c2), honest.proof)
    with pytest.raises(ProofError):
        verify_contribution(negated, context(1, 101))

