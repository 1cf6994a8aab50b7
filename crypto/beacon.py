"""The randomness beacon: public random draws that no seat can predict or bias.

Theory of operation: before the game, each seat picks a secret seed, builds a hash chain
``x[L] = seed-derived, x[i-1] = H(x[i])`` and publishes the tip ``x[0]`` in the genesis. Each
beacon round consumes every seat's next pre-image, in seat order, one record per seat: for the
j-th round a seat reveals ``x[j]``, and anyone checks ``H(x[j]) == x[j-1]`` at once. The round's
seed is the hash of the table id, the round number and all the pre-images. Since every
pre-image was fixed at genesis, the last seat to reveal can only refuse (an abort, which is
attributed to it), never steer the result; and the draw is unpredictable while one seat keeps
its chain secret.
"""

from __future__ import annotations

from spycraft.crypto.hashing import tagged_hash


def chain_step(value: bytes) -> bytes:
    return tagged_hash("beacon/chain", value)


def build_chain(seed: bytes, length: int) -> tuple[bytes, ...]:
    """``(x[0], x[1], ..., x[length])``: x[0] is the public tip, x[j] is revealed in round j."""
    values = [tagged_hash("beacon/end", seed)]
    for _ in range(length):
        values.append(chain_step(values[-1]))
    return tuple(reversed(values))


def continues(previous: bytes, revealed: bytes) -> bool:
    """True when ``revealed`` is the pre-image that follows ``previous`` in its chain."""
    return isinstance(revealed, bytes) and len(revealed) == 32 and chain_step(revealed) == previous


def round_seed(table: bytes, round_index: int, preimages: tuple[bytes, ...]) -> bytes:
    return tagged_hash("beacon/round", [table, round_index, list(preimages)])
