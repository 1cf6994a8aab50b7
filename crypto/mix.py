"""Verifiable mix: a handful of values revealed without saying who gave which (mission cards).

Theory of operation:
1. Each contributor posts a fresh ElGamal encryption of one of the allowed faces (for a mission:
   Success or Fail, as ``deck.Faces``) under the joint key, with a CDS OR-proof that it is one of
   them (``contribute`` / ``verify_contribution``). The proof's context binds the contributor's
   seat and seq, so nobody can copy or maul another seat's card into its own.
2. Every seat in turn re-encrypts and permutes the list with a proof of a shuffle
   (``mix`` / ``verify_mix``). Once one seat is honest, the link between contributors and
   outputs is lost.
3. Every seat publishes a Chaum-Pedersen-proven decryption share of each output
   (``decryption_shares`` / ``verify_decryption_shares``); ``tally`` combines them and names each
   face, in mixed order.
Anything a seat may see of a single card before the mix (a look at one contributor's card) is a
private reveal of that input ciphertext, as for a deck card (``deck.Deck.peek``).
"""

from __future__ import annotations

from collections.abc import Sequence

from spycraft.crypto.deck import Faces
from spycraft.crypto.elgamal import (
    Ciphertext,
    DecryptionShare,
    ProvenCiphertext,
    combine,
    decryption_share,
    encrypt_one_of,
    verify_decryption_share,
    verify_one_of,
)
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.shuffle import ShuffleProof, shuffle_and_prove, verify_shuffle


def contribute(pk: Point, faces: Faces, label: str, context: bytes, entropy: Entropy
               ) -> ProvenCiphertext:
    """A contributor's card: Enc(face of ``label``) with a proof that it is one of ``faces``."""
    return encrypt_one_of(pk, faces.points, faces.labels.index(label), context, entropy)


def verify_contribution(pk: Point, faces: Faces, contribution: ProvenCiphertext,
                        context: bytes) -> None:
    """Raise ``ProofError`` unless the contribution encrypts one of ``faces``."""
    verify_one_of(pk, faces.points, contribution, context)


def mix(ciphertexts: Sequence[Ciphertext], pk: Point, context: bytes, entropy: Entropy
        ) -> tuple[tuple[Ciphertext, ...], ShuffleProof]:
    """This seat's turn in the mix: re-encrypt, permute, prove."""
    return shuffle_and_prove(ciphertexts, pk, context, entropy)


def verify_mix(inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext], pk: Point,
               proof: ShuffleProof, context: bytes) -> None:
    """Raise ``ProofError`` unless ``outputs`` is a proven mix of ``inputs``."""
    verify_shuffle(inputs, outputs, pk, proof, context)


def decryption_shares(ciphertexts: Sequence[Ciphertext], secret: Scalar, context: bytes,
                      entropy: Entropy) -> tuple[DecryptionShare, ...]:
    """This seat's proven decryption share of every mixed ciphertext."""
    public = Point.base_mul(secret)
    return tuple(decryption_share(ct, secret, context, entropy, public) for ct in ciphertexts)


def verify_decryption_shares(ciphertexts: Sequence[Ciphertext], public: Point,
                             shares: Sequence[DecryptionShare], context: bytes) -> None:
    """Raise ``ProofError`` unless every share is correct for the seat with key share ``public``."""
    if len(shares) != len(ciphertexts):
        raise ProofError(f"{len(shares)} decryption shares for {len(ciphertexts)} ciphertexts")
    for ct, share in zip(ciphertexts, shares):
        verify_decryption_share(ct, public, share, context)


def tally(ciphertexts: Sequence[Ciphertext], shares_by_seat: Sequence[Sequence[Point]],
          faces: Faces) -> tuple[str, ...]:
    """The face of every mixed ciphertext, given every seat's verified shares."""
    if any(len(shares) != len(ciphertexts) for shares in shares_by_seat):
        raise MalformedValue("every seat needs one decryption share per ciphertext")
    return tuple(
        faces.label_of(combine(ct, [shares[i] for shares in shares_by_seat]))
        for i, ct in enumerate(ciphertexts))
