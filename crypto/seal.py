"""Sealed values: readable by one seat only, yet bound publicly and openable at the final reveal.

Theory of operation: each seat has a static X25519 table key (``seal_public_key`` of a 32-byte
secret, published in genesis). To seal a value for a receiver, the sender draws an ephemeral
X25519 key, derives a one-time ChaCha20-Poly1305 key with HKDF-SHA256 from the shared secret,
both public keys and the associated data, and encrypts ``[value, nonce]``. The associated data
(``SealBinding``: table, seq, sender, receiver, purpose) is authenticated, so sealed bytes cannot
be moved to another record, table or receiver. The ciphertext travels in a signed record, which
authenticates the sender; the transcript stays the only channel.

Beside the ciphertext the sender publishes a commitment ``Commitment.to("seal", [binding,
value], nonce)`` (see ``spycraft.crypto.commit``). The receiver checks it on ``unseal``. At the
final reveal the sender publishes a ``SealOpening`` (value, nonce, ephemeral secret): anyone can
then recompute the ephemeral public key, the ciphertext (the AEAD nonce is fixed because every
key is used once) and the commitment, so a seal whose content differs from its opening, or that
the receiver could not read, is proven against the sender (``check_opening``).

Keys: ``seal`` refuses a receiver key of small order or in a non-canonical encoding
(``crypto.keys.check_table_key``, raising ``BadKey``) before drawing any secret: a value sealed
to such a key would be readable by anyone. Table keys come from the genesis, whose ``SeatKeys``
already refuse them, so this is a second lock on the same door. A peer's ephemeral key is
checked the same way when a ``Sealed`` is decoded (``MalformedValue``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from spycraft.crypto.commit import NONCE_BYTES, Commitment
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import BadKey, EncodingError, MalformedValue, SealError
from spycraft.crypto.keys import check_table_key

KEY_BYTES = 32
_AEAD_NONCE = bytes(12)  # every AEAD key is fresh (new ephemeral key), so one fixed nonce is safe
_TAG_BYTES = 16


def seal_private_key(secret: bytes) -> X25519PrivateKey:
    """A seat's X25519 table key from 32 secret bytes (e.g. ``derive_secret(master, "seal")``)."""
    if not isinstance(secret, bytes) or len(secret) != KEY_BYTES:
        raise ValueError("a seal key secret is 32 bytes")
    return X25519PrivateKey.from_private_bytes(secret)


def seal_public_key(secret: bytes) -> bytes:
    """The 32-byte public table key that goes into genesis."""
    return seal_private_key(secret).public_key().public_bytes_raw()


@dataclass(frozen=True, slots=True)
class SealBinding:
    """Where a sealed value belongs: authenticated as associated data and in the commitment."""

    table: bytes
    seq: int
    sender: int
    receiver: int
    purpose: str

    def encode(self) -> list[object]:
        return [self.table, self.seq, self.sender, self.receiver, self.purpose]

    def associated_data(self) -> bytes:
        return encode(["spycraft/seal", self.encode()])


@dataclass(frozen=True, slots=True)
class Sealed:
    """What goes into the transcript: ephemeral public key, AEAD ciphertext, commitment."""

    ephemeral: bytes
    ciphertext: bytes
    commitment: bytes

    def encode(self) -> list[bytes]:
        return [self.ephemeral, self.ciphertext, self.commitment]

    @classmethod
    def decode(cls, value: object) -> Sealed:
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            raise MalformedValue("a sealed value is [ephemeral, ciphertext, commitment]")
        ephemeral, ciphertext, commitment = value
        if not isinstance(ephemeral, bytes) or len(ephemeral) != KEY_BYTES:
            raise MalformedValue("a seal's ephemeral key is 32 bytes")
        try:
            check_table_key(ephemeral)
        except BadKey as exc:
            raise MalformedValue(f"a seal's ephemeral {exc}") from None
        if not isinstance(ciphertext, bytes) or len(ciphertext) < _TAG_BYTES:
            raise MalformedValue("a seal's ciphertext is too short")
        if not isinstance(commitment, bytes) or len(commitment) != 32:
            raise MalformedValue("a seal's commitment is 32 bytes")
        return cls(ephemeral, ciphertext, commitment)


@dataclass(frozen=True, slots=True)
class SealOpening:
    """The sender's secret for one seal, published at the final reveal."""

    value: Any
    nonce: bytes
    ephemeral_secret: bytes

    def encode(self) -> list[Any]:
        return [self.value, self.nonce, self.ephemeral_secret]

    @classmethod
    def decode(cls, value: object) -> SealOpening:
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            raise MalformedValue("a seal opening is [value, nonce, ephemeral secret]")
        inner, nonce, secret = value
        if not isinstance(nonce, bytes) or len(nonce) != NONCE_BYTES:
            raise MalformedValue("a seal nonce is 32 bytes")
        if not isinstance(secret, bytes) or len(secret) != KEY_BYTES:
            raise MalformedValue("an ephemeral secret is 32 bytes")
        return cls(inner, nonce, secret)


def _commitment(binding: SealBinding, value: Any, nonce: bytes) -> bytes:
    return Commitment.to("seal", [binding.encode(), value], nonce).digest


def _aead(shared: bytes, ephemeral: bytes, receiver: bytes, ad: bytes) -> ChaCha20Poly1305:
    info = encode(["spycraft/seal-key", ephemeral, receiver, ad])
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
    return ChaCha20Poly1305(key)


def _exchange(private: X25519PrivateKey, public: bytes) -> bytes:
    try:
        return private.exchange(X25519PublicKey.from_public_bytes(public))
    except ValueError:  # a low-order public key: the shared secret would be all zeros
        raise SealError("X25519 key of low order") from None


def _encrypt(value: Any, nonce: bytes, ephemeral_secret: bytes, receiver_public: bytes,
             binding: SealBinding) -> Sealed:
    private = X25519PrivateKey.from_private_bytes(ephemeral_secret)
    ephemeral = private.public_key().public_bytes_raw()
    ad = binding.associated_data()
    aead = _aead(_exchange(private, receiver_public), ephemeral, receiver_public, ad)
    ciphertext = aead.encrypt(_AEAD_NONCE, encode([value, nonce]), ad)
    return Sealed(ephemeral, ciphertext, _commitment(binding, value, nonce))


def seal(value: Any, receiver_public: bytes, binding: SealBinding, entropy: Entropy
         ) -> tuple[Sealed, SealOpening]:
    """Seal a CBOR value to ``receiver_public``; keep the opening secret until the final reveal.

    ``BadKey`` if ``receiver_public`` is not a canonical X25519 key of large order.
    """
    check_table_key(receiver_public)
    encode(value)  # refuse what cannot be encoded before drawing any secret
    opening = SealOpening(value, entropy.take(NONCE_BYTES), entropy.take(KEY_BYTES))
    return _encrypt(value, opening.nonce, opening.ephemeral_secret, receiver_public,
                    binding), opening


def unseal(sealed: Sealed, receiver_secret: bytes, binding: SealBinding) -> Any:
    """The receiver's side: decrypt and check the public commitment; raise ``SealError``."""
    private = seal_private_key(receiver_secret)
    receiver_public = private.public_key().public_bytes_raw()
    ad = binding.associated_data()
    aead = _aead(_exchange(private, sealed.ephemeral), sealed.ephemeral, receiver_public, ad)
    try:
        plaintext = aead.decrypt(_AEAD_NONCE, sealed.ciphertext, ad)
        value, nonce = decode(plaintext)
    except (InvalidTag, EncodingError, ValueError, TypeError):
        raise SealError("sealed value does not decrypt for its receiver") from None
    if not isinstance(nonce, bytes) or _commitment(binding, value, nonce) != sealed.commitment:
        raise SealError("sealed value does not match its public commitment")
    return value


def check_opening(sealed: Sealed, opening: SealOpening, receiver_public: bytes,
                  binding: SealBinding) -> None:
    """At the final reveal: raise ``SealError`` unless the opening reproduces the sealed bytes."""
    try:
        again = _encrypt(opening.value, opening.nonce, opening.ephemeral_secret,
                         receiver_public, binding)
    except (EncodingError, ValueError):
        raise SealError("seal opening cannot be re-sealed") from None
    if again.commitment != sealed.commitment:
        raise SealError("seal opening does not open the public commitment")
    if again != sealed:
        raise SealError("sealed bytes are not the encryption of the opened value")
