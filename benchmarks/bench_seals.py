"""Seals that everyone checks at once: their size and CPU, and what they cost a SpyNet game.

    python benchmarks/bench_seals.py            # per-seal costs and sizes
    python benchmarks/bench_seals.py --game 3   # and a 4-player SpyNet selfplay (seeds 1..3)

Per seal (CPU, process_time, one core; bytes of canonical CBOR):

* a sealed reveal token (``crypto.seal.SealedShare``): the sender seals, every engine verifies,
  the receiver opens; beside it the public token it replaces in a private reveal (a proven
  decryption share);
* a sealed tool (``SealedChoice``), a sealed discard (``elgamal.encrypt_one_of``) and the round-2
  proof that a seat's tools are one Bullet and one Medkit (``elgamal.prove_plaintext``).

The game part plays seeded 4-player SpyNet selfplays on ``engines.local`` (every seat builds and
signs, one engine applies every record) and then audits each transcript from its bytes, the way
``spycraft audit`` does: total CPU, the seals in the game, and the CPU of ``deck_tokens``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from spycraft.crypto.deck import Deck, Faces
from spycraft.crypto.elgamal import (
    ciphertext_sum,
    decryption_share,
    encrypt_one_of,
    prove_plaintext,
    verify_decryption_share,
    verify_one_of,
    verify_plaintext,
)
from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.seal import (
    open_sealed_choice,
    open_sealed_share,
    seal_choice,
    seal_share,
    verify_sealed_choice,
    verify_sealed_share,
)
from spycraft.engines.audit import audit
from spycraft.engines.local import new_local_table
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet.bots import BOTS


def cpu(fn: Callable[[], object], repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def size(value: object) -> int:
    return len(encode(value))


def per_seal(repeat: int) -> None:
    entropy = SeededEntropy(b"bench seals")
    sender, receiver = Scalar.random(entropy), Scalar.random(entropy)
    s_pub, r_pub = Point.base_mul(sender), Point.base_mul(receiver)
    card = Deck.fresh(Faces.of("bench", ["a", "b"])).shuffled(s_pub, b"s", entropy)[0].cards[0]
    ctx = b"table|40|0|deck_tokens"
    sealed = seal_share(sender, card.c1, r_pub, ctx, entropy, s_pub)
    token = decryption_share(card, sender, ctx, entropy, s_pub)
    tools = (Point.hash_to("bench/tool", "B"), Point.hash_to("bench/tool", "M"))
    gift = seal_choice(tools, 0, s_pub, r_pub, ctx, entropy)
    discard = encrypt_one_of(s_pub, tools, 1, ctx, entropy)
    both_ct = ciphertext_sum([gift.own, discard.ciphertext])
    both = prove_plaintext(both_ct, sender, tools[0] + tools[1], ctx, entropy, s_pub)
    rows: list[tuple[str, float, float, float, int]] = [
        ("sealed token (SealedShare)",
         cpu(lambda: seal_share(sender, card.c1, r_pub, ctx, entropy, s_pub), repeat),
         cpu(lambda: verify_sealed_share(sealed, card.c1, s_pub, r_pub, ctx), repeat),
         cpu(lambda: open_sealed_share(sealed, receiver), repeat), size(sealed.encode())),
        ("public token (decryption share)",
         cpu(lambda: decryption_share(card, sender, ctx, entropy, s_pub), repeat),
         cpu(lambda: verify_decryption_share(card, s_pub, token, ctx), repeat), 0.0,
         size(token.encode())),
        ("sealed tool (SealedChoice)",
         cpu(lambda: seal_choice(tools, 0, s_pub, r_pub, ctx, entropy), repeat),
         cpu(lambda: verify_sealed_choice(gift, tools, s_pub, r_pub, ctx), repeat),
         cpu(lambda: open_sealed_choice(gift, receiver, tools), repeat), size(gift.encode())),
        ("sealed discard (one-of)",
         cpu(lambda: encrypt_one_of(s_pub, tools, 1, ctx, entropy), repeat),
         cpu(lambda: verify_one_of(s_pub, tools, discard, ctx), repeat), 0.0,
         size(discard.encode())),
        ("one Bullet + one Medkit proof",
         cpu(lambda: prove_plaintext(both_ct, sender, tools[0] + tools[1], ctx, entropy, s_pub),
             repeat),
         cpu(lambda: verify_plaintext(both_ct, s_pub, tools[0] + tools[1], both, ctx), repeat),
         0.0, size(both.encode())),
    ]
    print(f"{'per seal':34s} {'seal us':>8s} {'verify us':>10s} {'open us':>8s} {'bytes':>6s}")
    for name, made, checked, opened, nbytes in rows:
        print(f"  {name:32s} {made * 1e6:8.0f} {checked * 1e6:10.0f} {opened * 1e6:8.0f}"
              f" {nbytes:6d}")


def spynet_games(seeds: int) -> None:
    print("\n4-player SpyNet selfplay (engines.local) and its audit from bytes")
    for seed in range(1, seeds + 1):
        entropy = SeededEntropy(seed)
        local = new_local_table(GAME, {"situation": "off"}, 4, entropy)
        agents = [BOTS["random"](entropy.child(f"bot/{i}"), i) for i in range(4)]
        start = time.process_time()
        tokens = 0.0
        while (turn := local.table.expect(local.state)) is not None:
            t0 = time.process_time()
            signed = local.seats[turn.seat].build(local.state, agents[turn.seat])
            local.state = local.table.apply(local.state, signed)
            local.records.append(signed)
            if signed.record.kind == "deck_tokens":
                tokens += time.process_time() - t0
        played = time.process_time() - start
        data = local.transcript.to_bytes()
        start = time.process_time()
        report = audit(data)
        audited = time.process_time() - start
        seals = sum(1 for r in local.records if r.record.kind == "deck_tokens"
                    for s in r.record.body["sealed"] if s is not None)
        print(f"  seed {seed}: {len(local.records)} records, {len(data)} bytes, {seals} seals;"
              f" play {played:.2f} s CPU (deck_tokens {tokens:.2f} s), audit {audited:.2f} s;"
              f" {'VALID' if report.valid else 'NOT VALID'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--game", type=int, default=0, metavar="SEEDS",
                        help="also play and audit this many seeded 4-player SpyNet games")
    args = parser.parse_args()
    per_seal(args.repeat)
    if args.game:
        spynet_games(args.game)


if __name__ == "__main__":
    main()
