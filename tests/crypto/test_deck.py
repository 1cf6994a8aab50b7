"""Mental-poker deck: shuffles by every seat, private and public reveals, passes, final opening."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from toolkit_table import Table

from spycraft.crypto.deck import Deck, Faces, RevealToken, check_opened_share
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import InvalidProof, MalformedValue, OpeningError, ProofError
from spycraft.crypto.group import Scalar

Ctx = Callable[..., bytes]
LABELS = ("ace", "king", "queen", "jack", "ten", "nine")
FACES = Faces.of("test-deck", LABELS)


def shuffled(table: Table, entropy: SeededEntropy, context: Ctx) -> Deck:
    """Every seat shuffles in turn; every other seat checks the proof."""
    deck = Deck.fresh(FACES)
    for seat in range(len(table.secrets)):
        mine, proof = deck.shuffled(table.pk, context(seat, 10 + seat), entropy.child(str(seat)))
        deck = deck.after_shuffle(mine.cards, table.pk, proof, context(seat, 10 + seat))
    return deck


def tokens(deck: Deck, table: Table, index: int, seats: list[int], entropy: SeededEntropy,
           context: Ctx) -> list[RevealToken]:
    return [deck.reveal_token(index, table.secrets[s], context(s, 20), entropy) for s in seats]


def test_public_reveal_of_every_card_gives_back_the_deck(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    deck = shuffled(table3, entropy, context)
    seen = []
    for index in range(len(deck)):
        toks = tokens(deck, table3, index, [0, 1, 2], entropy, context)
        for seat, tok in enumerate(toks):
            deck.verify_token(index, table3.publics[seat], tok, context(seat, 20))
        seen.append(deck.open(index, [t.share for t in toks]))
    assert sorted(seen) == sorted(LABELS)


def test_private_reveal_lets_only_the_receiver_see(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    deck = shuffled(table3, entropy, context)
    others = tokens(deck, table3, 0, [0, 1], entropy, context)  # seat 2 receives card 0
    label = deck.peek(0, table3.secrets[2], [t.share for t in others])
    assert label in LABELS
    # seat 1 holds the same public tokens but not seat 2's share: the card stays hidden to it
    with pytest.raises(MalformedValue):  # decrypts to no card
        deck.peek(0, table3.secrets[1], [t.share for t in others])


def test_a_wrong_token_or_a_token_for_another_card_is_blamed_on_its_seat(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    deck = shuffled(table3, entropy, context)
    liar = deck.reveal_token(0, Scalar.random(entropy), context(1, 20), entropy,
                             public=table3.publics[1])
    with pytest.raises(ProofError) as caught:
        deck.verify_token(0, table3.publics[1], liar, context(1, 20))
    err = caught.value.attribute(1, 20)
    assert isinstance(err, InvalidProof) and err.seat == 1 and err.seq == 20
    other_card = deck.reveal_token(1, table3.secrets[1], context(1, 20), entropy)
    with pytest.raises(ProofError):
        deck.verify_token(0, table3.publics[1], other_card, context(1, 20))
    honest = deck.reveal_token(0, table3.secrets[1], context(1, 20), entropy)
    with pytest.raises(ProofError):  # replayed in a later record
        deck.verify_token(0, table3.publics[1], honest, context(1, 21))
    RevealToken.decode(decode(encode(honest.encode())))


def test_a_cheating_shuffle_is_rejected(table3: Table, entropy: SeededEntropy,
                                        context: Ctx) -> None:
    deck = shuffled(table3, entropy, context)
    mine, proof = deck.shuffled(table3.pk, context(0, 30), entropy)
    forged = (mine.cards[1], *mine.cards[1:])  # card 0 replaced by a copy of card 1
    with pytest.raises(ProofError):
        deck.after_shuffle(forged, table3.pk, proof, context(0, 30))


def test_passing_a_card_seals_the_holders_token_to_the_receiver(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    deck = shuffled(table3, entropy, context)
    public = tokens(deck, table3, 3, [1, 2], entropy, context)  # card 3 dealt to seat 0
    held = deck.peek(3, table3.secrets[0], [t.share for t in public])
    sealed = deck.seal_token(3, table3.secrets[0], table3.publics[2], context(0, 40), entropy)
    deck.verify_sealed_token(3, table3.publics[0], table3.publics[2], sealed, context(0, 40))
    token = deck.unseal_token(sealed, table3.secrets[2])
    assert deck.open(3, [token, *(t.share for t in public)]) == held
    # a holder that seals its token of another card is caught by everyone, at once
    wrong = deck.seal_token(4, table3.secrets[0], table3.publics[2], context(0, 40), entropy)
    with pytest.raises(ProofError) as caught:
        deck.verify_sealed_token(3, table3.publics[0], table3.publics[2], wrong, context(0, 40))
    err = caught.value.attribute(0, 40)
    assert isinstance(err, InvalidProof) and (err.seat, err.seq) == (0, 40)


def test_final_opening_decrypts_everything_and_checks_the_shares(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    deck = shuffled(table3, entropy, context)
    for secret, public in zip(table3.secrets, table3.publics):
        check_opened_share(secret, public)
    with pytest.raises(OpeningError):
        check_opened_share(table3.secrets[0], table3.publics[1])
    assert sorted(deck.open_with_secrets(i, table3.secrets) for i in range(6)) == sorted(LABELS)
