"""Timings of the hidden-information toolkit (a plain script, not a test).

Run: ``.venv/bin/python benchmarks/bench_toolkit.py [--quick]``. CPU time (process_time), one core.

1. Shuffle phases: every seat shuffles the deck once and proves it, and verifies every other
   seat's shuffle from the CBOR bytes it would receive (decoding and point validation included).
   Reported per seat: own shuffle+proof plus (seats - 1) verifications.
2. Each toolkit operation against its floor: the raw libsodium operations it is made of
   (scalar multiplications, base multiplications, point additions, validations) at their
   measured cost, so the ratio shows what the Python around them costs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import rbcl

from spycraft.crypto.deck import Deck, Faces
from spycraft.crypto.elgamal import (
    decode_ciphertexts,
    decryption_share,
    encode_ciphertexts,
    encrypt,
    encrypt_one_of,
    joint_key,
    reencrypt,
    verify_decryption_share,
    verify_one_of,
)
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.proofs import prove_dlog, verify_dlog
from spycraft.crypto.seal import open_sealed_share, seal_share, verify_sealed_share
from spycraft.crypto.shuffle import ShuffleProof, shuffle_and_prove, verify_shuffle


def cpu(fn: Callable[[], object], repeat: int) -> float:
    """Mean CPU seconds of one call."""
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def shuffle_phase(cards: int, seats: int) -> tuple[float, float, float]:
    """(max CPU per seat, mean prove, mean verify) for one full shuffle phase."""
    entropy = SeededEntropy(cards * 100 + seats)
    secrets = [Scalar.random(entropy) for _ in range(seats)]
    pk = joint_key(Point.base_mul(x) for x in secrets)
    deck = Deck.fresh(Faces.of("bench", [f"card{i}" for i in range(cards)])).cards
    per_seat = [0.0] * seats
    proves, verifies = [], []
    for seat in range(seats):
        ctx = f"table|{seat}|shuffle".encode()
        start = time.process_time()
        out, proof = shuffle_and_prove(deck, pk, ctx, entropy)
        wire = encode([encode_ciphertexts(out), proof.encode()])
        spent = time.process_time() - start
        per_seat[seat] += spent
        proves.append(spent)
        for other in range(seats):
            if other == seat:
                continue
            start = time.process_time()
            raw_out, raw_proof = decode(wire)
            received = decode_ciphertexts(raw_out, count=cards)
            verify_shuffle(deck, received, pk, ShuffleProof.decode(raw_proof, cards), ctx)
            spent = time.process_time() - start
            per_seat[other] += spent
            verifies.append(spent)
        deck = out
    return max(per_seat), sum(proves) / len(proves), sum(verifies) / len(verifies)


def main() -> None:
    quick = "--quick" in sys.argv[1:]  # every figure from few repetitions (the suite runs it)
    entropy = SeededEntropy(1)
    s = Scalar.random(entropy)
    p = Point.hash_to("bench", 1)
    q = Point.hash_to("bench", 2)
    sb, pb, qb = s.encode(), p.encode(), q.encode()
    n = 20 if quick else 2000
    raw = {
        "smul": cpu(lambda: rbcl.crypto_scalarmult_ristretto255(sb, pb), n),
        "bmul": cpu(lambda: rbcl.crypto_scalarmult_ristretto255_base(sb), n),
        "add": cpu(lambda: rbcl.crypto_core_ristretto255_add(pb, qb), n),
        "valid": cpu(lambda: rbcl.crypto_core_ristretto255_is_valid_point(pb), n),
        "from_hash": cpu(lambda: rbcl.crypto_core_ristretto255_from_hash(bytes(64)), n),
    }
    print("raw libsodium operations (us):")
    for name, t in raw.items():
        print(f"  {name:10s} {t * 1e6:7.1f}")

    def floor(smul: float = 0, bmul: float = 0, add: float = 0, valid: float = 0,
              from_hash: float = 0) -> float:
        return (smul * raw["smul"] + bmul * raw["bmul"] + add * raw["add"]
                + valid * raw["valid"] + from_hash * raw["from_hash"])

    def scale(reps: int) -> int:
        return max(1, reps // 100) if quick else reps

    x = Scalar.random(entropy)
    public = Point.base_mul(x)
    pk = Point.base_mul(Scalar.random(entropy))
    ct = encrypt(pk, p, s)
    schnorr = prove_dlog(x, public, b"c", entropy)
    share = decryption_share(ct, x, b"c", entropy, public)
    faces = (Point.hash_to("bench", "success"), Point.hash_to("bench", "fail"))
    proven = encrypt_one_of(pk, faces, 1, b"c", entropy)
    receiver = Scalar.random(entropy)
    receiver_public = Point.base_mul(receiver)
    sealed = seal_share(x, ct.c1, receiver_public, b"c", entropy, public)
    ops: list[tuple[str, Callable[[], object], float, int]] = [
        ("Point.decode", lambda: Point.decode(pb), floor(valid=1), n),
        ("Point * Scalar", lambda: p * s, floor(smul=1), n),
        ("Point.base_mul", lambda: Point.base_mul(s), floor(bmul=1), n),
        ("Point + Point", lambda: p + q, floor(add=1), n),
        ("Point.hash_to", lambda: Point.hash_to("bench", 3), floor(from_hash=1), n),
        ("Scalar * Scalar", lambda: s * s, 0.0, n),
        ("encrypt", lambda: encrypt(pk, p, s), floor(smul=1, bmul=1, add=1), n),
        ("reencrypt", lambda: reencrypt(ct, pk, s), floor(smul=1, bmul=1, add=2), n),
        ("prove_dlog (Schnorr)", lambda: prove_dlog(x, public, b"c", entropy),
         floor(bmul=1), scale(500)),
        ("verify_dlog", lambda: verify_dlog(public, schnorr, b"c"),
         floor(bmul=1, smul=1, add=1), scale(500)),
        ("decryption_share (token+CP)", lambda: decryption_share(ct, x, b"c", entropy, public),
         floor(smul=1, bmul=1) + floor(smul=1), scale(500)),
        ("verify_decryption_share", lambda: verify_decryption_share(ct, public, share, b"c"),
         floor(smul=3, bmul=1, add=2), scale(500)),
        ("encrypt_one_of (k=2)", lambda: encrypt_one_of(pk, faces, 1, b"c", entropy),
         floor(smul=1, bmul=1, add=1) + floor(bmul=2, smul=3, add=3), scale(300)),
        ("verify_one_of (k=2)", lambda: verify_one_of(pk, faces, proven, b"c"),
         floor(bmul=2, smul=4, add=6), scale(300)),
        ("seal_share (sealed token)",
         lambda: seal_share(x, ct.c1, receiver_public, b"c", entropy, public),
         floor(bmul=3, smul=4, add=2), scale(500)),
        ("verify_sealed_share", lambda: verify_sealed_share(sealed, ct.c1, public,
                                                            receiver_public, b"c"),
         floor(bmul=2, smul=5, add=4), scale(500)),
        ("open_sealed_share", lambda: open_sealed_share(sealed, receiver),
         floor(smul=1, add=1), scale(500)),
    ]
    print("\ntoolkit operations: cost, floor (raw ops it is made of), ratio")
    for name, fn, fl, reps in ops:
        t = cpu(fn, reps)
        ratio = f"{t / fl:5.2f}x" if fl else "   - "
        print(f"  {name:30s} {t * 1e6:8.1f} us   floor {fl * 1e6:7.1f} us   {ratio}")

    print("\nshuffle proof, one column, N ciphertexts (prove includes the shuffle itself)")
    for cards in (5,) if quick else (5, 52, 76):
        deck = Deck.fresh(Faces.of("bench", [f"c{i}" for i in range(cards)])).cards
        deck = shuffle_and_prove(deck, pk, b"c", entropy)[0]
        out, proof = shuffle_and_prove(deck, pk, b"c", entropy)
        reps = 1 if quick else max(3, 200 // cards)
        tp = cpu(lambda d=deck: shuffle_and_prove(d, pk, b"c", entropy), reps)  # type: ignore[misc]
        tv = cpu(lambda d=deck, o=out, pr=proof: verify_shuffle(d, o, pk, pr, b"c"), reps)  # type: ignore[misc]
        fp = floor(smul=5 * cards + 1, bmul=4 * cards + 4, add=8 * cards)
        fv = floor(smul=8 * cards + 4, bmul=cards + 4, add=10 * cards)
        print(f"  N={cards:3d}  prove {tp * 1e3:6.1f} ms (floor {fp * 1e3:5.1f}, {tp / fp:4.2f}x)"
              f"   verify {tv * 1e3:6.1f} ms (floor {fv * 1e3:5.1f}, {tv / fv:4.2f}x)")

    print("\nshuffle phases (each seat proves once and verifies every other seat's shuffle,"
          " from received CBOR)")
    targets = {(5, 2): None} if quick else {(52, 4): 0.25, (52, 10): 0.6, (76, 4): None}
    for (cards, seats), target in targets.items():
        worst, prove, verify = shuffle_phase(cards, seats)
        goal = f"target <= {target:.2f} s" if target else ""
        print(f"  {cards} cards, {seats:2d} seats: {worst:5.3f} s CPU per seat"
              f"  (prove {prove * 1e3:5.1f} ms, verify {verify * 1e3:5.1f} ms)  {goal}")



if __name__ == "__main__":
    main()
