"""What a stranger's bytes cost to refuse: CPU per frame and per KiB (a plain script, issue 18).

Run: ``.venv/bin/python benchmarks/bench_door.py``.

Each case is one frame payload (or record) a peer might send; the script times how long the
receiving side takes to refuse it (``p2p.wire.decode_payload`` for frames, the way
``FramedStream.receive`` hands them over; ``crypto.records.parse_record`` for a record inside a
``record`` frame), best of five, and prints milliseconds and milliseconds per KiB:

* a 1 MiB array of a million empty maps (issue 18, attack 6: 1-2.5 s before);
* the worst a budget admits: a map whose one field is an array of byte strings as long as the
  item budget allows, in 1 MiB (it passes the CBOR gate and is refused by the schema);
* a record of a million empty maps (a COSE_Sign1 in a record's layout);
* a well-formed sync reply of 512 KiB of records, which is accepted (for scale).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import cbor2

from spycraft.crypto.encoding import encode, item_budget
from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.records import PROTECTED_SIGN1, parse_record
from spycraft.p2p.wire import decode_payload

ONE_MIB = 1 << 20


def _array(count: int, item: bytes) -> bytes:
    return bytes([0x9A]) + count.to_bytes(4, "big") + item * count


def cases() -> dict[str, tuple[bytes, Callable[[bytes], object]]]:
    maps = _array(ONE_MIB - 5, b"\xa0")
    envelope = encode({"v": 1, "t": "sync", "from_seq": 1})[:-1]  # its last field's value cut
    allowed = item_budget(ONE_MIB) - 16
    worst = envelope + _array(allowed, b"\x40") + b"\x00" * (ONE_MIB - len(envelope) - 5 - allowed)
    worst = worst[:ONE_MIB]
    record = encode(cbor2.CBORTag(18, [PROTECTED_SIGN1, {}, _array(ONE_MIB - 512, b"\xa0"),
                                       bytes(64)]))
    sync = encode({"v": 1, "t": "sync_reply", "from_seq": 1,
                   "records": [bytes(500)] * (512 * 1024 // 503)})
    return {
        "a million empty maps (1 MiB frame)": (maps, decode_payload),
        "an array at the item budget (1 MiB frame)": (worst, decode_payload),
        "a record of a million empty maps (1 MiB)": (record, parse_record),
        "a sync reply of 512 KiB (accepted)": (sync, decode_payload),
    }


def main() -> None:
    print(f"{'case':<46}{'bytes':>9}{'ms':>9}{'ms/KiB':>9}  outcome")
    for name, (data, reader) in cases().items():
        best = float("inf")
        outcome = "accepted"
        for _ in range(5):
            start = time.perf_counter()
            try:
                reader(data)
            except SpycraftError as exc:
                outcome = f"refused: {str(exc)[:60]}"
            best = min(best, time.perf_counter() - start)
        print(f"{name:<46}{len(data):>9}{1000 * best:>9.2f}{1000 * best / (len(data) / 1024):>9.4f}"
              f"  {outcome}")


if __name__ == "__main__":
    main()
