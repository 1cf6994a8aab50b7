"""The prime-order group ristretto255, through libsodium (rbcl): scalars, points, hashing to both.

Theory of operation: every hidden-information primitive (ElGamal, proofs, shuffles, decks, mixes)
is arithmetic in one group of prime order L = 2**252 + 27742317777372353535851937790883648493.
``Scalar`` is an integer mod L and ``Point`` a group element, each kept as its canonical 32-byte
encoding, so equality, hashing and serialisation are byte operations and every arithmetic
operation is one libsodium call. Both classes are immutable and slotted: they sit on the hot path
of the shuffle proof, where a scalar multiplication costs ~49 us and a point addition ~14 us, so
the wrappers add as little as possible.

Trust boundary: values we compute ourselves are valid by construction. Bytes from a peer become a
``Point`` or ``Scalar`` only through ``Point.decode`` / ``Scalar.decode``, which reject anything
that is not a canonical encoding (``MalformedValue``). Ristretto has no cofactor, so a valid
encoding is a point of the prime-order group; the only special element left is the identity,
which ``Point.decode(..., nonidentity=True)`` rejects where a key or a token must not be it.
Note: libsodium's ``is_valid_point`` ignores the top bit of an encoding (so ``P`` with bit 255 set
would decode to ``P``); ``Point.decode`` rejects that bit itself.

Hashing into the group names its purpose: ``hash_to_point(domain, value)`` and
``hash_to_scalar(domain, value)`` take 64 bytes of SHA-512 over the canonical CBOR of
``["spycraft/" + domain, value]`` (the ``tagged_hash`` layout, widened to 64 bytes so the result is
uniform) and map them with ``crypto_core_ristretto255_from_hash`` or reduce them mod L.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cryptography.hazmat.primitives import hashes

from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue
from spycraft.crypto.sodium import rbcl  # loaded there once, its temp file removed

ORDER = 2**252 + 27742317777372353535851937790883648493
"""L, the order of the group and of the scalar field."""

ENCODING_BYTES = 32

# rbcl ships no type information: pin the signatures once, here.
_smul: Callable[[bytes, bytes], bytes] = rbcl.crypto_scalarmult_ristretto255
_bmul: Callable[[bytes], bytes] = rbcl.crypto_scalarmult_ristretto255_base
_padd: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_add
_psub: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_sub
_valid: Callable[[bytes], bool] = rbcl.crypto_core_ristretto255_is_valid_point
_from_hash: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_from_hash
_sadd: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_add
_ssub: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_sub
_smulsc: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_mul
_sneg: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_negate
_sinv: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_invert
_sreduce: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_reduce

_ZERO = bytes(32)
_GENERATOR_BYTES = _bmul((1).to_bytes(32, "little"))


def wide_hash(domain: str, value: Any) -> bytes:
    """64 bytes of SHA-512 over canonical CBOR ``["spycraft/" + domain, value]``."""
    h = hashes.Hash(hashes.SHA512())
    h.update(encode(["spycraft/" + domain, value]))
    return h.finalize()


class Scalar:
    """An integer modulo the group order, kept as 32 canonical little-endian bytes."""

    __slots__ = ("_b",)
    _b: bytes

    def __init__(self, canonical: bytes) -> None:
        """Wrap bytes already known to be canonical; peers' bytes go through ``decode``."""
        object.__setattr__(self, "_b", canonical)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Scalar is immutable")

    @classmethod
    def decode(cls, data: object) -> Scalar:
        """A scalar from a peer: exactly 32 bytes, little-endian, below the group order."""
        if not isinstance(data, bytes) or len(data) != ENCODING_BYTES:
            raise MalformedValue("a scalar is 32 bytes")
        if int.from_bytes(data, "little") >= ORDER:
            raise MalformedValue("non-canonical scalar (not reduced mod the group order)")
        return cls(data)

    @classmethod
    def from_int(cls, value: int) -> Scalar:
        return cls((value % ORDER).to_bytes(ENCODING_BYTES, "little"))

    @classmethod
    def reduce(cls, wide: bytes) -> Scalar:
        """64 uniform bytes reduced mod L: a uniform scalar (bias below 2**-250)."""
        return cls(_sreduce(wide))

    @classmethod
    def random(cls, entropy: Entropy) -> Scalar:
        """A uniform scalar from the caller's entropy; never zero (for keys and blinding)."""
        while True:
            s = cls(_sreduce(entropy.take(64)))
            if s._b != _ZERO:
                return s

    @classmethod
    def from_hash(cls, domain: str, value: Any) -> Scalar:
        """A scalar derived from public data (Fiat-Shamir challenges, derived nonces)."""
        return cls(_sreduce(wide_hash(domain, value)))

    def encode(self) -> bytes:
        return self._b

    def __int__(self) -> int:
        return int.from_bytes(self._b, "little")

    def is_zero(self) -> bool:
        return self._b == _ZERO

    def __add__(self, other: Scalar) -> Scalar:
        return Scalar(_sadd(self._b, other._b))

    def __sub__(self, other: Scalar) -> Scalar:
        return Scalar(_ssub(self._b, other._b))

    def __mul__(self, other: Scalar) -> Scalar:
        return Scalar(_smulsc(self._b, other._b))

    def __neg__(self) -> Scalar:
        return Scalar(_sneg(self._b))

    def inverse(self) -> Scalar:
        if self._b == _ZERO:
            raise ZeroDivisionError("zero has no inverse")
        return Scalar(_sinv(self._b))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scalar) and other._b == self._b

    def __hash__(self) -> int:
        return hash((Scalar, self._b))

    def __repr__(self) -> str:
        return "Scalar(...)"  # scalars are often secrets: never print them


ZERO = Scalar(_ZERO)
ONE = Scalar.from_int(1)


class Point:
    """An element of ristretto255, kept as its canonical 32-byte encoding."""

    __slots__ = ("_b",)
    _b: bytes

    def __init__(self, canonical: bytes) -> None:
        """Wrap an encoding already known to be valid; peers' bytes go through ``decode``."""
        object.__setattr__(self, "_b", canonical)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Point is immutable")

    @classmethod
    def decode(cls, data: object, *, nonidentity: bool = False) -> Point:
        """A point from a peer: a canonical ristretto255 encoding (optionally not the identity)."""
        if not isinstance(data, bytes) or len(data) != ENCODING_BYTES:
            raise MalformedValue("a group element is 32 bytes")
        # libsodium (as bundled in rbcl) ignores the top bit, so it would accept a second
        # encoding of every point: a canonical encoding is a field element below 2**255 - 19.
        if data[31] & 0x80 or not _valid(data):
            raise MalformedValue("not a canonical ristretto255 encoding")
        if nonidentity and data == _ZERO:
            raise MalformedValue("the identity element is not allowed here")
        return cls(data)

    @classmethod
    def base_mul(cls, k: Scalar) -> Point:
        """k * G for the standard generator G."""
        try:
            return cls(_bmul(k._b))
        except RuntimeError:  # libsodium refuses to return the identity: k is zero
            return IDENTITY

    @classmethod
    def hash_to(cls, domain: str, value: Any) -> Point:
        """A point nobody knows a discrete log of, from a domain tag and a CBOR value."""
        return cls(_from_hash(wide_hash(domain, value)))

    def encode(self) -> bytes:
        return self._b

    def is_identity(self) -> bool:
        return self._b == _ZERO

    def __add__(self, other: Point) -> Point:
        return Point(_padd(self._b, other._b))

    def __sub__(self, other: Point) -> Point:
        return Point(_psub(self._b, other._b))

    def __neg__(self) -> Point:
        return Point(_psub(_ZERO, self._b))

    def __mul__(self, k: Scalar) -> Point:
        try:
            if self._b == _GENERATOR_BYTES:  # 3x faster with libsodium's fixed-base table
                return Point(_bmul(k._b))
            return Point(_smul(k._b, self._b))
        except RuntimeError:  # the product is the identity (k zero or self the identity)
            return IDENTITY

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and other._b == self._b

    def __hash__(self) -> int:
        return hash((Point, self._b))

    def __repr__(self) -> str:
        return f"Point({self._b[:6].hex()}...)"


IDENTITY = Point(_ZERO)
GENERATOR = Point(_GENERATOR_BYTES)


def point_sum(points: Iterable[Point]) -> Point:
    """The sum of the points (the identity for none)."""
    acc = _ZERO
    for p in points:
        acc = _padd(acc, p._b)
    return Point(acc)


def scalar_sum(scalars: Iterable[Scalar]) -> Scalar:
    acc = _ZERO
    for s in scalars:
        acc = _sadd(acc, s._b)
    return Scalar(acc)


def decode_points(value: object, *, count: int | None = None, nonidentity: bool = False
                  ) -> tuple[Point, ...]:
    """A CBOR list of point encodings from a peer, of ``count`` items when given."""
    if not isinstance(value, (list, tuple)):
        raise MalformedValue("expected a list of group elements")
    if count is not None and len(value) != count:
        raise MalformedValue(f"expected {count} group elements, got {len(value)}")
    return tuple(Point.decode(v, nonidentity=nonidentity) for v in value)


def decode_scalars(value: object, *, count: int | None = None) -> tuple[Scalar, ...]:
    """A CBOR list of scalar encodings from a peer, of ``count`` items when given."""
    if not isinstance(value, (list, tuple)):
        raise MalformedValue("expected a list of scalars")
    if count is not None and len(value) != count:
        raise MalformedValue(f"expected {count} scalars, got {len(value)}")
    return tuple(Scalar.decode(v) for v in value)
