"""Floor for spycraft's LAN record path: a minimal mesh used as a yardstick beside the project.

N processes on 127.0.0.1, full TCP mesh (trio). A relay race like tests/p2p/relay.py: record
seq is written by seat seq % N once that seat has accepted record seq-1. A record is
seq(4) | seat(1) | prev = sha256 of the previous record (32) | ~300-byte payload | Ed25519 sig(64),
signed and verified with libsodium (rbcl's bundled copy, through ctypes). The author sends it to
the N-1 others; each verifies the signature and the chain link, appends it to its file, fsyncs,
and acks the author. Latency = from just after signing (spycraft's created_at is taken after
seat.build, which signs) until the author holds all N-1 acks. CPU = process_time of each peer
from "all links up" to the end, summed over peers.

  parent:  python floor_mesh.py --peers 10 --records 300 [--author-fsync] [--port 47000]

A copy of ../shared/bench/floor_mesh.py (the yardstick of issue 21), which ``bench_lan.py
--targets`` runs beside the relay race, alternated, and divides by.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import time

REC, ACK, READY, DONE = 1, 2, 3, 4
PAYLOAD = 300


def sodium():
    import rbcl  # noqa: F401  (loads libsodium from a temp file)

    loader = sys.modules["rbcl._sodium"]
    path = getattr(loader, "lib_path", None)
    if isinstance(path, str):
        pathlib.Path(path).unlink(missing_ok=True)
    lib = loader._sodium
    lib.crypto_sign_ed25519_detached.argtypes = [
        ctypes.c_char_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]
    lib.crypto_sign_ed25519_verify_detached.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]
    lib.crypto_sign_ed25519_seed_keypair.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    return lib


def child(seat: int, n: int, base: int, total: int, folder: str, author_fsync: bool) -> None:
    import trio

    lib = sodium()
    if os.environ.get("BENCH_NO_FSYNC"):
        os.fsync = lambda fd: None
    publics, secret = [], None
    for s in range(n):
        pk, sk = ctypes.create_string_buffer(32), ctypes.create_string_buffer(64)
        lib.crypto_sign_ed25519_seed_keypair(pk, sk, bytes([s]) * 32)
        publics.append(pk.raw)
        if s == seat:
            secret = sk.raw
    sig_buf = ctypes.create_string_buffer(64)

    def sign(msg: bytes) -> bytes:
        lib.crypto_sign_ed25519_detached(sig_buf, None, msg, len(msg), secret)
        return sig_buf.raw

    def verify(sig: bytes, msg: bytes, author: int) -> bool:
        return lib.crypto_sign_ed25519_verify_detached(sig, msg, len(msg), publics[author]) == 0

    fd = os.open(os.path.join(folder, f"peer{seat}.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    links: dict[int, tuple] = {}  # seat -> (stream, lock)
    all_up = trio.Event()
    state = {"head": 0, "prev": b"\0" * 32, "ready": 0, "done": 0, "c0": 0.0}
    future: dict[int, bytes] = {}
    created: dict[int, float] = {}
    acks: dict[int, int] = {}
    latencies: list[float] = []
    finished = trio.Event()
    everyone_done = trio.Event()
    start = trio.Event()
    payload = os.urandom(PAYLOAD)

    async def send(to: int, kind: int, body: bytes) -> None:
        stream, lock = links[to]
        async with lock:
            await stream.send_all(struct.pack(">IB", len(body) + 1, kind) + body)

    async def broadcast(kind: int, body: bytes) -> None:
        for s in list(links):
            await send(s, kind, body)

    def check_end() -> None:
        mine_acked = all(acks.get(q, 0) == n - 1 for q in created)
        if state["head"] == total and mine_acked and not finished.is_set():
            finished.set()

    async def write(seq: int) -> None:
        head = struct.pack(">IB", seq, seat) + state["prev"] + payload
        record = head + sign(head)
        created[seq] = trio.current_time()
        acks[seq] = 0
        if author_fsync:
            os.write(fd, record)
            os.fsync(fd)
        state["head"] = seq
        state["prev"] = hashlib.sha256(record).digest()
        await broadcast(REC, record)

    async def accept(record: bytes) -> None:
        seq, author = struct.unpack_from(">IB", record)
        os.write(fd, record)
        os.fsync(fd)
        state["head"] = seq
        state["prev"] = hashlib.sha256(record).digest()
        await send(author, ACK, struct.pack(">I", seq))
        if seq < total and (seq + 1) % n == seat:
            await write(seq + 1)

    async def on_record(record: bytes) -> None:
        seq, author = struct.unpack_from(">IB", record)
        body, sig = record[:-64], record[-64:]
        if not verify(sig, body, author):
            raise RuntimeError(f"bad signature on {seq}")
        if seq != state["head"] + 1:
            future[seq] = record  # verified; its chain link is checked when its turn comes
            return
        if record[5:37] != state["prev"]:
            raise RuntimeError(f"record {seq} breaks the chain")
        await accept(record)
        while state["head"] + 1 in future:
            nxt = future.pop(state["head"] + 1)
            if nxt[5:37] != state["prev"]:
                raise RuntimeError("chain")
            await accept(nxt)
        check_end()

    async def reader(other: int, stream, buf: bytearray) -> None:
        while True:
            while len(buf) >= 4:
                size = struct.unpack_from(">I", buf)[0]
                if len(buf) < 4 + size:
                    break
                kind, body = buf[4], bytes(buf[5:4 + size])
                del buf[:4 + size]
                if kind == REC:
                    await on_record(body)
                elif kind == ACK:
                    seq = struct.unpack(">I", body)[0]
                    acks[seq] += 1
                    if acks[seq] == n - 1:
                        latencies.append(trio.current_time() - created[seq])
                    check_end()
                elif kind == READY:
                    state["ready"] += 1
                    if state["ready"] == n - 1:
                        start.set()
                elif kind == DONE:
                    state["done"] += 1
                    if state["done"] == n - 1:
                        everyone_done.set()
            data = await stream.receive_some(65536)
            if not data:
                return
            buf += data

    async def main() -> None:
        async with trio.open_nursery() as nursery:

            def add(other: int, stream, rest: bytes) -> None:
                links[other] = (stream, trio.Lock())
                nursery.start_soon(reader, other, stream, bytearray(rest))
                if len(links) == n - 1:
                    all_up.set()

            async def handler(stream) -> None:
                data = b""
                while not data:
                    data = await stream.receive_some(65536)
                add(data[0], stream, data[1:])
                await trio.sleep_forever()

            listeners = await trio.open_tcp_listeners(base + seat, host="127.0.0.1")
            nursery.start_soon(trio.serve_listeners, handler, listeners)
            for other in range(seat):  # dial the lower seats
                while True:
                    try:
                        stream = await trio.open_tcp_stream("127.0.0.1", base + other)
                        break
                    except OSError:
                        await trio.sleep(0.05)
                await stream.send_all(bytes([seat]))
                add(other, stream, b"")
            await all_up.wait()
            prof = None
            if os.environ.get("BENCH_PROFILE_GAME"):
                import cProfile
                prof = cProfile.Profile(time.process_time)
                prof.enable()
            state["c0"] = time.process_time()
            t0 = trio.current_time()
            if seat == 0:
                await start.wait()
                await write(1)
            else:
                await send(0, READY, b"")
            await finished.wait()
            if prof is not None:
                prof.disable()
                prof.dump_stats(f"{os.environ['BENCH_PROFILE_GAME']}/floor{seat}.prof")
            t1 = trio.current_time()
            await broadcast(DONE, b"")
            await everyone_done.wait()
            cpu = time.process_time() - state["c0"]
            print(json.dumps({"seat": seat, "cpu": cpu, "latencies": latencies,
                              "records": state["head"], "phase_s": t1 - t0,
                              "cpu_total": time.process_time()}), flush=True)
            nursery.cancel_scope.cancel()

    trio.run(main)


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def parent(args) -> None:
    folder = tempfile.mkdtemp(prefix="floor-mesh-")
    procs = []
    for seat in range(args.peers):
        cmd = [sys.executable, __file__, "--child", str(seat), "--peers", str(args.peers),
               "--port", str(args.port), "--records", str(args.records), "--folder", folder]
        if args.author_fsync:
            cmd.append("--author-fsync")
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True))
    results = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=args.timeout)
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        for f in pathlib.Path(folder).iterdir():
            f.unlink()
        os.rmdir(folder)
    lat = [1000 * x for r in results for x in r["latencies"]]
    cpu = sum(r["cpu"] for r in results)
    out = {"peers": args.peers, "records": args.records, "author_fsync": args.author_fsync,
           "median_ms": pct(lat, 0.5), "p90_ms": pct(lat, 0.9), "p99_ms": pct(lat, 0.99),
           "max_ms": max(lat), "cpu_ms_per_record": 1000 * cpu / args.records,
           "cpu_s": cpu, "whole_process_cpu_s": sum(r["cpu_total"] for r in results),
           "phase_s": max(r["phase_s"] for r in results), "n_lat": len(lat)}
    print(json.dumps(out))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--peers", type=int, default=10)
    ap.add_argument("--records", type=int, default=300)
    ap.add_argument("--port", type=int, default=47000)
    ap.add_argument("--author-fsync", action="store_true")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--child", type=int, default=None)
    ap.add_argument("--folder", default="")
    a = ap.parse_args()
    if a.child is not None:
        child(a.child, a.peers, a.port, a.records, a.folder, a.author_fsync)
    else:
        parent(a)
