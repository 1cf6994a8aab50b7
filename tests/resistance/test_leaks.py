"""Nothing hidden leaves its owner before the rules allow (rules §7, DESIGN.md §4).

Every record is broadcast, so what any seat can read before the final reveal is every byte of
every record before the first ``reveal``. From it, nobody may be able to finish the decryption of
another seat's role card, of the spy key, or of a mission card that was neither spotlighted nor
examined (and an examined card only with the examiner's own secret).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from spycraft.crypto import recognition
from spycraft.crypto.elgamal import decrypt_with_secret
from spycraft.crypto.group import scalar_sum
from spycraft.engines.resistance.rules import State

from .helpers import seat_of, table


def byte_strings(value: Any) -> Iterator[bytes]:
    if isinstance(value, bytes):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from byte_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from byte_strings(item)


def test_no_role_spy_key_or_mission_card_leaks_before_the_final_reveal() -> None:
    looks = eyes = spotlights = 0
    for seed in range(6):
        local, agents = table(7, 100 + seed, plot=True)
        final = local.run(agents)
        state: State = final.game
        n = state.n
        public: set[bytes] = set()
        for signed in local.records:
            if signed.record.kind == "reveal":
                break
            public.update(byte_strings(signed.record.body))
        keys = [seat_of(local, i).key for i in range(n)]
        assert not any(k.encode() in public for k in keys)
        for i, (face, key) in enumerate(state.deck):
            assert (face.c1 * keys[i]).encode() not in public, f"seat {i}'s role is readable"
            assert (key.c1 * keys[i]).encode() not in public
            assert all((face.c1 * keys[j]).encode() in public for j in range(n) if j != i)
        whole = scalar_sum(keys)
        spy_key = decrypt_with_secret(recognition.spy_key_ciphertext(state.contributions), whole)
        assert spy_key.encode() not in public
        spotlit = {
            (r.round, s) for r in state.game.results if r is not None for s, _ in r.spotlight
        }
        examined = {(e.round, e.target): e.examiner for e in state.eyes}
        for card in state.played:
            shares = [(card.ciphertext.c1 * k).encode() in public for k in keys]
            if (card.round, card.seat) in spotlit:
                spotlights += 1
                assert all(shares)
            elif (card.round, card.seat) in examined:
                eyes += 1
                examiner = examined[(card.round, card.seat)]
                assert [j for j, shown in enumerate(shares) if not shown] == [examiner]
            else:
                assert not all(shares), f"seat {card.seat}'s card in round {card.round} is linkable"
        looks += len(state.role_looks)
    assert looks and eyes and spotlights, (looks, eyes, spotlights)
