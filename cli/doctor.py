"""``spycraft doctor``: why a table does not appear on the LAN, and what to do about it.

Theory of operation
-------------------
A table is found by mDNS (multicast UDP 5353 on one interface) and played over TCP on that
interface's address, so the doctor checks exactly those, in the order a game needs them, each
through the same code a game uses (``p2p.discovery``: ifaddr, real zeroconf, trio sockets):

1. **Interfaces**: every IPv4 interface this machine reports, and the one a game would use
   (``--interface`` or ``choose_interface``). Several candidates and no default route, an
   unknown name, or nothing but loopback: the game cannot start, and we say which to pick.
2. **mDNS here**: the system must let a socket join 224.0.0.251 on the interface; then one
   zeroconf responder announces a short-lived test service (``_spycraft-doc._tcp``) and a second,
   separate zeroconf instance asks for it by multicast and must get the answer. This is real
   sending and receiving through the system's network stack and its firewall on this interface.
3. **TCP here**: a listener on the interface's address (any free port, as a table uses) must
   accept a connection made to that address and answer over it.
4. **Other machines**: while it runs, the doctor's test service stays announced and it watches
   for other doctors; each one heard is resolved and connected to over TCP. Run the doctor on
   two laptops at once to test the path between them: ``--peers N`` makes hearing and reaching
   N other machines a requirement. A machine alone cannot tell client isolation from an empty
   network, so without ``--peers`` hearing nobody is only a note.

Each failure is printed with its likely causes and the fix on the platform the doctor runs on
(the firewall prompts of macOS and Windows, client isolation on guest Wi-Fi, a VPN, several
interfaces). Exit status: 0 when a LAN game can work here, 1 when a check failed, 2 when the
``--interface`` given is not on this machine.

Nothing here trusts a stranger: a peer's ad is parsed with zeroconf's own checks, its TCP answer
is one bounded line read under a deadline, and any error it causes is a failed check, not a crash.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import secrets
import shutil
import socket
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import trio
import zeroconf
from zeroconf import DNSQuestionType, ServiceStateChange
from zeroconf.asyncio import AsyncServiceInfo

from spycraft.p2p.discovery import (
    DiscoveryError,
    InterfaceChoice,
    NetworkInterface,
    ResolveQueue,
    ZeroconfBridge,
    choose_interface,
    find_interface,
    network_interfaces,
    open_zeroconf,
)

DOCTOR_TYPE = "_spycraft-doc._tcp.local."
MDNS_GROUP = "224.0.0.251"
QUERY_TIMEOUT = 3.0
TCP_TIMEOUT = 3.0
LINGER = 3.0  # seconds to keep answering others after our own checks are done
AT_ONCE = 8  # other doctors' names resolved at once
MOST_PEERS = 64  # other doctors listed and reached at once; one not reached makes room
GREETING = b"spycraft-doctor "
MAX_LINE = 128
ANSWER_AT_ONCE = 64  # connections answered at once; any more are closed at once
ANSWER_PER_ADDRESS = 4  # of them from one address: a stranger's idle ones cannot hold the rest

Out = Callable[[str], None]


# --- advice: the likely causes and their fixes, per platform ------------------------------------


def _platform() -> str:
    if sys.platform == "darwin":
        return "macOS"
    if sys.platform == "win32":
        return "Windows"
    return "Linux" if sys.platform.startswith("linux") else sys.platform


def firewall_fix(iface: str) -> str:
    system = _platform()
    if system == "macOS":
        return ("macOS firewall: the first time spycraft listens, macOS asks \"Do you want the "
                "application Python to accept incoming network connections?\": choose Allow. "
                "If you chose Deny: System Settings > Network > Firewall > Options, set Python "
                "to \"Allow incoming connections\". On macOS 15 and later also allow your "
                "terminal under System Settings > Privacy & Security > Local Network.")
    if system == "Windows":
        return ("Windows Defender Firewall: the first time spycraft listens, Windows asks whether "
                "Python may communicate on networks: tick Private networks and Allow. If this "
                "network is marked Public, make it Private (Settings > Network & internet > your "
                "Wi-Fi or Ethernet > Network profile type > Private), or allow python.exe under "
                "Windows Defender Firewall > Allow an app through firewall.")
    return (f"a host firewall may drop mDNS (UDP 5353) or the game's TCP port. ufw: "
            f"`sudo ufw allow in on {iface} to any port 5353 proto udp` and "
            f"`sudo ufw allow in on {iface} proto tcp`; firewalld: "
            f"`sudo firewall-cmd --add-service=mdns` and put {iface} in a trusted zone.")


ISOLATION_FIX = ("guest, hotel and some office Wi-Fi isolate clients (each reaches the internet, "
                 "not the others): play on a home network, a phone's hotspot, or a cable and a "
                 "switch; in a router's settings this is called AP or client isolation.")
VPN_FIX = ("a VPN that owns the default route can hide the LAN: disconnect it or enable its "
           "\"allow local network access\" setting, or pass --interface with your LAN interface.")
SAME_NETWORK_FIX = ("every laptop must be on the same network (the same Wi-Fi name, or the same "
                    "switch); two Wi-Fi networks of one router are often kept apart.")


def several_fix(candidates: list[NetworkInterface]) -> str:
    names = ", ".join(f"{i.label} ({i.address})" for i in candidates)
    return (f"this machine has several interfaces that could carry a table ({names}) and no "
            f"default route to tell them apart: run `spycraft doctor --interface NAME` to check "
            f"one, then play with the same --interface NAME.")


def no_lan_fix() -> str:
    return ("no LAN interface is up: switch Wi-Fi on and join the same network as the others, "
            "or plug in the cable. A table on loopback is seen by this machine only.")


# --- the report ---------------------------------------------------------------------------------


@dataclass
class Report:
    out: Out
    failed: bool = False

    def ok(self, what: str, detail: str) -> None:
        self.out(f"ok    {what}: {detail}")

    def note(self, what: str, detail: str) -> None:
        self.out(f"note  {what}: {detail}")

    def fail(self, what: str, detail: str, *fixes: str) -> None:
        self.failed = True
        self.out(f"FAIL  {what}: {detail}")
        for fix in fixes:
            self.out(f"      - {fix}")


def _instance_name() -> str:
    host = re.sub(r"[^a-z0-9-]", "-", socket.gethostname().lower())[:24].strip("-") or "host"
    return f"doctor-{host}-{os.urandom(3).hex()}"


# --- checks ---------------------------------------------------------------------------------------


def pick_interface(given: str | None, report: Report) -> tuple[InterfaceChoice | None, int]:
    """List the interfaces and choose one; (None, exit status) when no game can start."""
    interfaces = network_interfaces()
    report.out("interfaces (IPv4):")
    for interface in interfaces:
        report.out(f"    {interface.describe()}")
    if not interfaces:
        report.out("    none")
    if given is not None:
        try:
            chosen = find_interface(given, interfaces)
        except DiscoveryError as exc:
            report.fail("interface", str(exc),
                        "pass --interface with a name or address from the list above")
            return None, 2
        return InterfaceChoice(chosen, "given with --interface"), 0
    try:
        choice = choose_interface(interfaces)
    except DiscoveryError as exc:
        usable = [i for i in interfaces if i.can_carry_a_table]
        report.fail("interface", str(exc), several_fix(usable))
        return None, 1
    if choice.warning:
        report.fail("interface", choice.reason, no_lan_fix())
        return None, 1
    return choice, 0


def check_interface(choice: InterfaceChoice, report: Report) -> None:
    interface = choice.interface
    report.out(f"using {interface.label} ({interface.address}): {choice.reason}")
    if interface.loopback:
        report.note("interface", "loopback: a table here is seen by this machine only")
    elif interface.up is False:
        report.fail("interface", f"{interface.label} is down", no_lan_fix())
    elif interface.point_to_point:
        report.fail("interface", f"{interface.label} is a point-to-point link (a VPN or tunnel?)",
                    VPN_FIX)
    elif interface.multicast is False:
        report.fail("interface", f"{interface.label} cannot send multicast, which mDNS needs",
                    "use another interface with --interface, or enable multicast on this one "
                    f"(Linux: `sudo ip link set {interface.name} multicast on`)")
    if not interface.loopback and any(
        i.default_route and i.point_to_point for i in network_interfaces()
    ):
        report.note("vpn", f"the default route goes through a VPN or tunnel. {VPN_FIX}")


def join_mdns_group(address: str) -> str | None:
    """Why this machine cannot join the mDNS group on ``address``, or None when it can."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.bind(("", 0))  # Windows refuses a join on an unbound socket
            request = socket.inet_aton(MDNS_GROUP) + socket.inet_aton(address)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, request)
    except OSError as exc:
        return f"{exc.strerror or exc} (errno {exc.errno})"
    return None


async def check_mdns(interface: NetworkInterface, instance: str, port: int,
                     report: Report) -> bool:
    refused = join_mdns_group(interface.address)
    if refused is not None:
        report.fail("mDNS", f"the system refused to join the mDNS group {MDNS_GROUP} on "
                    f"{interface.label}: {refused}",
                    "the interface or the system does not allow multicast here: use another "
                    "interface with --interface (Linux: check `ip link show` says MULTICAST and "
                    "/proc/sys/net/ipv4/igmp_max_memberships is not 0)",
                    firewall_fix(interface.name))
        return False
    started = trio.current_time()
    name = f"{instance}.{DOCTOR_TYPE}"
    try:
        async with open_zeroconf(interface.address) as asker:
            question = AsyncServiceInfo(DOCTOR_TYPE, name)
            zc = asker.zc
            found = await asker.call(lambda: question.async_request(
                zc, int(QUERY_TIMEOUT * 1000), question_type=DNSQuestionType.QM))
    except (OSError, zeroconf.Error) as exc:
        report.fail("mDNS", f"a second mDNS responder could not start on {interface.label}: {exc}",
                    "another program may hold UDP port 5353 for itself: quit it",
                    firewall_fix(interface.name))
        return False
    elapsed = trio.current_time() - started
    if not found or question.port != port:
        report.fail("mDNS", f"announced a test service on {interface.label} but a second "
                    f"responder on this machine did not hear it within {QUERY_TIMEOUT:.0f} s",
                    firewall_fix(interface.name),
                    "a security tool may block multicast: allow UDP 5353 to and from "
                    f"{MDNS_GROUP}")
        return False
    report.ok("mDNS", f"announced a test service on {interface.label} and a second responder "
              f"found it by multicast ({elapsed:.1f} s)")
    return True


async def _greet(stream: trio.SocketStream, instance: str) -> str:
    """Send our greeting, read theirs: the other side's instance name."""
    await stream.send_all(GREETING + instance.encode() + b"\n")
    received = b""
    while b"\n" not in received and len(received) <= MAX_LINE:
        chunk = await stream.receive_some(MAX_LINE)
        if not chunk:
            break
        received += chunk
    line = received.split(b"\n", 1)[0]
    if not line.startswith(GREETING):
        raise ValueError("not a spycraft doctor")
    return line[len(GREETING):].decode("ascii", "replace")


async def serve_greetings(listener: trio.SocketListener, instance: str,
                          greeted: trio.MemorySendChannel[tuple[str, str]] | None = None) -> None:
    """Answer every doctor that connects; pass on (its name, the address it came from), dropped
    when ``greeted`` is full: a stranger's connections cannot hold us up. At most
    ``ANSWER_PER_ADDRESS`` connections of one address and ``ANSWER_AT_ONCE`` in all are answered
    at once, any more closed unread: idle ones of a stranger held one file descriptor each, and
    at a low limit (macOS's 256) the doctor could open no socket of its own."""
    answering: dict[str, int] = {}  # address -> its connections being answered

    async def answer(stream: trio.SocketStream) -> None:
        async with stream:
            try:
                source = stream.socket.getpeername()[0]
            except OSError:
                return
            if (answering.get(source, 0) >= ANSWER_PER_ADDRESS
                    or sum(answering.values()) >= ANSWER_AT_ONCE):
                return  # each held connection is a file descriptor of ours: bounded
            answering[source] = answering.get(source, 0) + 1
            try:
                await answer_one(stream, source)
            finally:
                answering[source] -= 1
                if not answering[source]:
                    del answering[source]

    async def answer_one(stream: trio.SocketStream, source: str) -> None:
        with trio.move_on_after(TCP_TIMEOUT):
            try:
                other = await _greet(stream, instance)
            except (OSError, ValueError, trio.BrokenResourceError, trio.ClosedResourceError):
                return  # a stranger's failure is its own
            if greeted is not None:
                try:
                    greeted.send_nowait((other, source))
                except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                    pass

    await trio.serve_listeners(answer, [listener])


async def reach(address: str, port: int, instance: str) -> str:
    """Connect to a doctor and exchange greetings: its instance name, or raises OSError."""
    with trio.fail_after(TCP_TIMEOUT):
        stream = await trio.open_tcp_stream(address, port)
        async with stream:
            return await _greet(stream, instance)


async def check_tcp(interface: NetworkInterface, port: int, instance: str,
                    report: Report) -> bool:
    try:
        answer = await reach(interface.address, port, instance)
    except (OSError, ValueError, trio.TooSlowError, trio.BrokenResourceError) as exc:
        report.fail("TCP", f"listened on {interface.address}:{port} but could not connect to it: "
                    f"{exc or 'no answer'}", firewall_fix(interface.name))
        return False
    if answer != instance:
        report.fail("TCP", f"{interface.address}:{port} answered as {answer!r}, not us",
                    "another program answers on this address: is the address used twice on "
                    "the LAN?")
        return False
    report.ok("TCP", f"listened on {interface.address}:{port} and connected to it")
    return True


def shown(text: str) -> str:
    """A stranger's text as printed: a character a terminal would act on (a newline, an escape
    sequence) is written as its code, so no name can forge a line of the report."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


@dataclass
class Peer:
    name: str
    address: str
    port: int
    reached: bool | None = None
    why: str = ""


async def watch_peers(bridge: ZeroconfBridge, interface: NetworkInterface, instance: str,
                      wanted: int, wait: float, report: Report,
                      greeted: trio.MemoryReceiveChannel[tuple[str, str]] | None = None) -> None:
    """Resolve and reach the other doctors heard, until ``wanted`` answered or ``wait`` ran out.

    A stranger can announce any number of doctor names, resolvable or not, so, as a browser of
    tables does (``p2p.discovery``): a name whose records the cache holds (a real doctor's
    announcement carries them all) is reached at once; any other waits in a ``ResolveQueue``
    (drawn at random, never by arrival; a name that did not resolve is backed off); ``AT_ONCE``
    names are resolved at a time; at most ``MOST_PEERS`` are listed, all reached at once, one
    that could not be reached making room for another (a name heard while none can waits in
    the queue for that room).

    A doctor that greeted us (``greeted``: its name and the address it came from) is reached
    back at once, ahead of the queue and up to twice the list's limit, if its announcement
    points at that address: so two doctors amid a flood of names that never answer find each
    other as soon as either found the other (a stranger gains nothing it could not get by
    announcing names of its own: it can hurry only names that point at itself)."""
    peers: dict[str, Peer] = {}
    ours = f"{instance}.{DOCTOR_TYPE}"
    zc = bridge.zc
    queue = ResolveQueue()
    more = trio.Event()  # set (and replaced) when names start waiting
    freed = trio.Event()  # set (and replaced) when a listed peer could not be reached
    crowded = False
    forgotten = 0

    def room() -> bool:
        return len(peers) < MOST_PEERS or any(p.reached is False for p in peers.values())

    def wait_for_room(name: str) -> None:
        """A name heard while every listed peer is still being reached (none failed yet, so
        none can make room) waits in the queue, drawn at random as the rest: dropping it lost
        a real doctor heard amid a flood for good (its name is announced once)."""
        nonlocal crowded, more
        if not crowded:
            crowded = True
            report.out(f"heard more than {MOST_PEERS} other doctors: checking {MOST_PEERS} "
                       f"at a time")
        queue.heard(name, trio.current_time())
        more.set()
        more = trio.Event()

    async def reach_peer(name: str, info: AsyncServiceInfo, *, hurried: bool = False,
                         address: str | None = None) -> None:
        nonlocal forgotten, freed
        addresses = info.parsed_addresses()
        if not addresses or info.port is None:
            return
        if name in peers and not (hurried and peers[name].reached is False):
            return
        if len(peers) >= MOST_PEERS and name not in peers:
            failed = [other for other, peer in peers.items() if peer.reached is False]
            if failed:  # make room: forget a peer that could not be reached
                del peers[failed[secrets.randbelow(len(failed))]]
                forgotten += 1
            elif not hurried or len(peers) >= 2 * MOST_PEERS:
                wait_for_room(name)
                return
        peer = peers[name] = Peer(name.removesuffix("." + DOCTOR_TYPE), address or addresses[0],
                                  info.port)
        try:
            answered = await reach(peer.address, peer.port, instance)
            peer.reached = answered == peer.name
            peer.why = "" if peer.reached else f"answered as {answered!r}"
        except (OSError, ValueError, trio.TooSlowError, trio.BrokenResourceError) as exc:
            peer.reached, peer.why = False, str(exc) or "no answer"
        if not peer.reached:
            freed.set()
            freed = trio.Event()

    async def ask(info: AsyncServiceInfo) -> bool:
        return await bridge.call(lambda: info.async_request(
            zc, int(QUERY_TIMEOUT * 1000), question_type=DNSQuestionType.QM))

    async def resolver() -> None:
        while True:
            if not room():  # a name taken now could only wait again
                await freed.wait()
                continue
            taken = queue.take()
            if taken is None:
                await more.wait()
                continue
            name, ticket = taken
            info = AsyncServiceInfo(DOCTOR_TYPE, name)
            found = await ask(info)  # one at a time: ``AT_ONCE`` resolvers run
            if queue.finished(name, ticket, found, trio.current_time()) and found:
                await reach_peer(name, info)

    async def reach_back(nursery: trio.Nursery) -> None:
        assert greeted is not None
        async for other, source in greeted:
            name = f"{other}.{DOCTOR_TYPE}"
            if name == ours or (name in peers and peers[name].reached is not False):
                continue
            try:
                info = AsyncServiceInfo(DOCTOR_TYPE, name)
            except zeroconf.Error:  # not a name zeroconf would ask about
                continue

            async def cached(info: AsyncServiceInfo = info) -> bool:
                return info.load_from_cache(zc)

            if await bridge.call(cached) and source in info.parsed_addresses():
                queue.settled(name)
                # at the address it came from: not one its ad names first (another machine's)
                nursery.start_soon(partial(reach_peer, name, info, hurried=True, address=source))

    def enough() -> bool:
        return wanted > 0 and sum(1 for p in peers.values() if p.reached) >= wanted

    report.out(f"listening {wait:.0f} s for other machines running `spycraft doctor`"
               + (f" (need {wanted})" if wanted else "") + " ...")
    with trio.move_on_after(wait):
        async with bridge.browse(DOCTOR_TYPE) as events, trio.open_nursery() as nursery:
            for _ in range(AT_ONCE):
                nursery.start_soon(resolver)
            if greeted is not None:
                nursery.start_soon(reach_back, nursery)
            while not enough():
                with trio.move_on_after(0.2):
                    batch = (await events.next_batch()).changes
                    heard = {}
                    for name, change in batch.items():
                        if change is ServiceStateChange.Removed:
                            queue.settled(name)
                        elif name != ours and name not in peers:
                            try:
                                heard[name] = AsyncServiceInfo(DOCTOR_TYPE, name)
                            except zeroconf.Error:  # zeroconf would not ask about such a name
                                pass

                    async def cached_all(heard: dict[str, AsyncServiceInfo] = heard) -> set[str]:
                        return {name for name, info in heard.items() if info.load_from_cache(zc)}

                    found = await bridge.call(cached_all) if heard else set()
                    now = trio.current_time()
                    for name in secrets.SystemRandom().sample(sorted(heard), len(heard)):
                        if name in found:  # in a random order: none is reached first by arrival
                            queue.settled(name)
                            nursery.start_soon(reach_peer, name, heard[name])
                        else:
                            queue.heard(name, now)
                    if len(queue):
                        more.set()
                        more = trio.Event()
            nursery.cancel_scope.cancel()
    reached = [p for p in peers.values() if p.reached]
    for peer in peers.values():
        if peer.reached:
            report.ok("peer", f"heard {shown(peer.name)} by mDNS and reached "
                      f"{peer.address}:{peer.port} over TCP")
        elif 0 < wanted <= len(reached):  # anyone can announce a doctor: enough answered
            report.note("peer", f"heard {shown(peer.name)} by mDNS but could not reach "
                        f"{peer.address}:{peer.port} over TCP: {peer.why}")
        else:
            report.fail("peer", f"heard {shown(peer.name)} by mDNS but could not reach "
                        f"{peer.address}:{peer.port} over TCP: {peer.why}",
                        firewall_fix(interface.name) + " (on that machine)", ISOLATION_FIX)
    if forgotten:
        report.note("peers", f"{forgotten} more heard could not be reached (not listed)")
    if len(reached) < wanted:
        report.fail("peers", f"reached {len(reached)} other machine(s), {wanted} needed",
                    ISOLATION_FIX, firewall_fix(interface.name) + " (on every machine)", VPN_FIX,
                    SAME_NETWORK_FIX)
    elif not peers:
        report.note("peers", "no other machine running `spycraft doctor` was heard; run it on "
                    "another laptop at the same time (with --peers 1) to test the path between "
                    "them")


async def diagnose(given: str | None, wait: float, wanted: int, out: Out) -> int:
    report = Report(out)
    out(f"spycraft doctor on {_platform()} ({platform.platform()}), Python "
        f"{platform.python_version()}, zeroconf {zeroconf.__version__}")
    choice, status = pick_interface(given, report)
    if choice is None:
        out("result: no LAN game can start here until the above is fixed")
        return status
    check_interface(choice, report)
    interface = choice.interface
    instance = _instance_name()
    try:
        listener = (await trio.open_tcp_listeners(0, host=interface.address))[0]
    except OSError as exc:
        report.fail("TCP", f"could not listen on {interface.address}: {exc}",
                    firewall_fix(interface.name))
        out("result: a LAN game will not work here until the failures above are fixed")
        return 1
    port = listener.socket.getsockname()[1]
    greeted_in, greeted = trio.open_memory_channel[tuple[str, str]](MOST_PEERS)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve_greetings, listener, instance, greeted_in)
        await check_tcp(interface, port, instance, report)
        try:
            async with open_zeroconf(interface.address) as bridge:
                info = AsyncServiceInfo(
                    DOCTOR_TYPE, f"{instance}.{DOCTOR_TYPE}", port=port,
                    server=f"{instance}.local.", addresses=[socket.inet_aton(interface.address)],
                )
                zc = bridge.zc

                async def register() -> None:
                    await (await zc.async_register_service(info, cooperating_responders=True))

                await bridge.call(register)
                if await check_mdns(interface, instance, port, report):
                    await watch_peers(bridge, interface, instance, wanted, wait, report,
                                      greeted)
                    if wanted:
                        await trio.sleep(LINGER)  # the others may still be reaching us

                async def unregister() -> None:
                    await (await zc.async_unregister_service(info))

                with trio.move_on_after(2):
                    await bridge.call(unregister)
        except (OSError, zeroconf.Error) as exc:
            report.fail("mDNS", f"could not start mDNS on {interface.label}: {exc}",
                        "another program may hold UDP port 5353 for itself: quit it",
                        firewall_fix(interface.name))
        nursery.cancel_scope.cancel()
    if report.failed:
        out("result: a LAN game will not work here until the failures above are fixed")
        return 1
    if interface.loopback:
        out(f"result: a game on this machine alone can work on {interface.address}")
    else:
        out(f"result: a LAN game can work on {interface.label} ({interface.address})")
    return 0


def run(args: argparse.Namespace) -> int:
    wait = args.wait if args.wait is not None else (30.0 if args.peers else 3.0)

    columns = max(40, min(100, shutil.get_terminal_size((100, 24)).columns))

    def out(line: str) -> None:  # set for the terminal: a word is never cut at its edge
        print("\n".join(textwrap.fill(part, columns, subsequent_indent=" " * 6,
                                       break_long_words=False, break_on_hyphens=False)
                        for part in line.split("\n")), flush=True)

    status: int = trio.run(diagnose, args.interface, wait, args.peers, out)
    return status
