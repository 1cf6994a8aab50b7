"""A TCP relay that damages what it carries: the faulty cable of ``benchmarks/chaos.py`` and of
the relay tests (``python tests/chaos/damaging_relay.py --host A --to B:P --mode cut``).

Theory of operation: the relay listens on ``--host`` once per ``--to HOST:PORT`` (a port of its
own for each) and carries every connection it accepts to that target, both ways, byte for byte,
except on a connection it chose to damage. On such a connection it picks, from its seed, one
direction and one byte offset (within the first ``--within`` bytes of that direction, where the
handshake and the first records travel) and there either flips one bit (``flip``: the frame
arrives whole but wrong, so a signature, a CBOR head or a length no longer checks) or cuts the
connection both ways (``cut``: the receiver holds part of a frame when the stream ends). A cut
ends both directions with a FIN, and the relay reads (and drops) what each end still sends
until that end closes too: closing a socket with bytes unread would send a reset instead,
which the receiver may see before the cut frame's end (a lost link, not a frame cut short). The
first connection to each target is always damaged; later ones with probability ``--rate``, so a
link that is dialled again heals sooner or later, as a flaky cable does. ``--direction`` and
``--at`` fix the damage of the first connection instead (a test's exact case).

It prints ``listen PORT -> HOST:PORT`` once per target when it is ready, and one line per damage
done (``flip conn 3 to-target at byte 1234 bit 5``), which the runner counts. It runs until it is
sent SIGTERM. It is a test instrument, not part of the product: it knows nothing of frames.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
from dataclasses import dataclass

import trio

CHUNK = 1 << 16


@dataclass
class Damage:
    mode: str  # "flip" or "cut"
    direction: str  # "to-target" or "from-target"
    offset: int
    bit: int
    done: bool = False
    cut: bool = False  # a cut was made: both directions now end, and what arrives is dropped


CUT_DRAIN = 10.0  # seconds an end has, after a cut, to close its side


def say(line: str) -> None:
    print(line, flush=True)


async def pump(source: trio.SocketStream, sink: trio.SocketStream, direction: str,
               damage: Damage | None, conn: int, cut: trio.CancelScope) -> None:
    carried = 0
    ended = False  # this direction's FIN was sent
    try:
        while True:
            data = await source.receive_some(CHUNK)
            if not data:
                break
            if damage is not None and damage.cut:  # drop it, and end this direction too
                if not ended:
                    ended = True
                    await sink.send_eof()
                continue
            if (damage is not None and not damage.done and damage.direction == direction
                    and carried <= damage.offset < carried + len(data)):
                at = damage.offset - carried
                damage.done = True
                if damage.mode == "cut":
                    await sink.send_all(data[:at])
                    await sink.send_eof()
                    ended = damage.cut = True
                    say(f"cut conn {conn} {direction} at byte {damage.offset}")
                    cut.deadline = trio.current_time() + CUT_DRAIN
                    continue
                data = data[:at] + bytes([data[at] ^ (1 << damage.bit)]) + data[at + 1:]
                say(f"flip conn {conn} {direction} at byte {damage.offset} bit {damage.bit}")
            await sink.send_all(data)
            carried += len(data)
        if not ended:
            await sink.send_eof()
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        cut.cancel()


async def carry(client: trio.SocketStream, target: tuple[str, int], damage: Damage | None,
                conn: int) -> None:
    try:
        server = await trio.open_tcp_stream(*target)
    except OSError:
        await client.aclose()
        return
    async with client, server:
        with trio.CancelScope() as cut:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(pump, client, server, "to-target", damage, conn, cut)
                nursery.start_soon(pump, server, client, "from-target", damage, conn, cut)


async def serve(args: argparse.Namespace, target: tuple[str, int], rng: random.Random,
                counter: list[int]) -> None:
    listener = (await trio.open_tcp_listeners(0, host=args.host))[0]
    say(f"listen {listener.socket.getsockname()[1]} -> {target[0]}:{target[1]}")
    first = True
    async with trio.open_nursery() as nursery:
        while True:
            client = await listener.accept()
            counter[0] += 1
            damage = None
            if first or rng.random() < args.rate:
                damage = Damage(args.mode, rng.choice(("to-target", "from-target")),
                                rng.randrange(args.within), rng.randrange(8))
                if first and args.direction:
                    damage.direction = args.direction
                if first and args.at is not None:
                    damage.offset = args.at
            first = False
            nursery.start_soon(carry, client, target, damage, counter[0])


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    counter = [0]
    targets = []
    for spec in args.to:
        host, _, port = spec.rpartition(":")
        targets.append((host, int(port)))
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with trio.open_nursery() as nursery:
            for target in targets:
                nursery.start_soon(serve, args, target, random.Random(rng.random()), counter)
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break
    say(f"relay stopped after {counter[0]} connections")


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--host", required=True, help="the address to listen on")
    p.add_argument("--to", action="append", required=True, help="HOST:PORT to carry to")
    p.add_argument("--mode", choices=("flip", "cut"), required=True)
    p.add_argument("--rate", type=float, default=0.5,
                   help="chance that a later connection is damaged too")
    p.add_argument("--within", type=int, default=8192,
                   help="damage falls within this many bytes of a direction")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--direction", choices=("to-target", "from-target"), default=None,
                   help="the first connection's damage goes this way")
    p.add_argument("--at", type=int, default=None, help="... at this byte")
    return p.parse_args(argv)


if __name__ == "__main__":
    trio.run(main, parse(sys.argv[1:]))
