"""Announce one table from a separate process, driven by lines on stdin (for test_discovery).

Usage: python announce_table.py ADDRESS PORT TABLE_HEX. Prints "ready" once registered; reads
"seats N" (update seats taken, prints "updated") and "quit" (withdraw and exit).
"""

from __future__ import annotations

import sys

import trio

from spycraft.p2p.discovery import Announcer


async def main(address: str, port: int, table_hex: str) -> None:
    stdin = trio.lowlevel.FdStream(0)
    async with Announcer(
        address,
        port=port,
        game="resistance",
        options={"blind_spies": False, "plot": True, "targeting": False},
        table_id=bytes.fromhex(table_hex),
        fingerprint="K7QF-2MZD-XH4A-9TNB-C3PW",
        seats_total=5,
        seats_taken=1,
        cooperating_responders=True,
    ) as announcer:
        print("ready", flush=True)
        buffered = b""
        while True:
            chunk = await stdin.receive_some(1024)
            if not chunk:
                return
            buffered += chunk
            while b"\n" in buffered:
                line, buffered = buffered.split(b"\n", 1)
                command = line.decode().split()
                if command == ["quit"]:
                    return
                if command and command[0] == "seats":
                    await announcer.update(int(command[1]))
                    print("updated", flush=True)


if __name__ == "__main__":
    trio.run(main, sys.argv[1], int(sys.argv[2]), sys.argv[3])
