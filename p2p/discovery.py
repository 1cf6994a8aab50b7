"""Discovery: open tables announced and found on the LAN with mDNS/DNS-SD (zeroconf).

Theory of operation:

* A table is one service of type ``_spycraft._tcp.local.`` named ``spycraft-<table id hex>``.
  Its SRV/A records give the opener's address and TCP port; its TXT record says what the table
  is: ``v`` protocol version, ``game``, ``opt`` options digest (hex), ``o`` the options
  themselves (``encode_options``: ``+name`` yes, ``-name`` no, ``name:choice``, ``name=42`` an
  integer (decimal, canonical, within 64 bits), sorted, at most
  ``MAX_OPTIONS`` of them in ``MAX_OPTIONS_TEXT`` bytes), ``seats`` taken/total ("1/2"),
  ``table`` table id (hex), ``fp`` the opener's identity fingerprint and, optionally, ``n`` the
  opener's name (UTF-8, printable, at most ``MAX_NAME`` characters). An ad whose ``o`` does not
  hash to its ``opt`` is refused, and a joiner checks the roster's options against ``opt``, so an
  ad cannot show other options than the genesis will carry. The opener is trusted with nothing
  else: an ad only says where to connect; hellos and genesis settle the rest.
* Everything runs on one chosen interface, given as an IPv4 address of this machine or an
  interface name (resolved to its IPv4 address). Never all interfaces: tests pass 127.0.0.1 and
  mDNS stays on loopback; the product takes ``--interface``.
* Interfaces come from ``ifaddr`` on every platform (no ioctl, no POSIX-only module). On Linux
  ``/sys/class/net`` adds whether each is up, multicast-capable or point-to-point, and
  ``/proc/net/route`` which one holds the default route; elsewhere the default route is found by
  connecting a UDP socket to a documentation address (no packet is sent) and flags stay unknown
  (None), with tunnel-like names (utun, ppp, "WireGuard", ...) taken as tunnels.
  ``choose_interface`` picks, when the person names none: the default route's interface if it
  can carry a table, else the only one that can; with several and no default route it refuses
  and names them, since guessing wrong hides the table from everyone. Laptops on a bare switch
  have no default route at all; that is the case this rule is for.
* zeroconf runs its own asyncio loop in its own thread. ``ZeroconfBridge`` is the one place
  where that thread meets trio: Zeroconf is created and closed in ``trio.to_thread.run_sync``;
  zeroconf coroutines run on ``zc.loop`` through ``asyncio.run_coroutine_threadsafe`` and trio
  awaits their future; browser callbacks reach trio through the ``TrioToken`` (never blocking
  zeroconf's thread) and are coalesced per service name, so a burst loses nothing and costs
  memory only per name. On exit the browser is cancelled first, then zeroconf is closed, in a
  shielded cancel scope so a cancelled caller still withdraws cleanly.
* ``Announcer`` registers the table (with zeroconf's name-conflict probing, about 0.75 s; tests
  may pass ``cooperating_responders=True`` to skip it) and returns while zeroconf's first three
  announcements go on (0.45 s more), ``update(seats_taken)`` republishes the TXT record (and
  waits out its own three), and leaving the context unregisters (goodbye packets) and closes
  zeroconf. The first announcements stop before an update's and before the goodbyes, so an
  older ad never follows a newer one, nor any ad its goodbye.
* ``browse_tables`` yields ``TableAd`` values (added, updated, removed). Ads come from strangers:
  a TXT record that is not exactly what ``Announcer`` would send is ignored with a logged reason.
* **Resolving names.** The browser only says a name was heard (a PTR record); the table is in
  the name's SRV, TXT and A records, and a stranger can multicast thousands of names that have
  none, each of which would make a browser ask for up to the resolve timeout (3 s). So a name
  that does not resolve must never delay or hide one that does. One task owns the tables seen
  and reads an inbox fed by the browser's batches, by ``RESOLVERS`` resolver tasks and by the
  checker of goodbyes (see Goodbyes):
  - A goodbye for a name we show no table for settles it at once; one for a table we show is
    a doubt (see Goodbyes). Every other name of a batch is first looked up in zeroconf's
    cache, in one hop for the whole batch: a table's own announcement, and its answer to our
    question, carry all its records, so a real table is read at once however many names wait.
  - A name the cache cannot resolve waits in ``ResolveQueue`` (sans-IO, tested alone) for one
    of the ``RESOLVERS`` resolvers, each asking the network about one name for at most the
    resolve timeout. The next name is drawn at random, never by arrival: a stranger's names
    sent before or after a table's gain nothing. At most ``MAX_WAITING`` names wait; past that
    they are a reservoir sample of every name heard since none waited, each as likely to stay.
  - A name that did not resolve is backed off (30 s, doubling to 600): heard again meanwhile,
    by a goodbye and a new announcement or by any new record, it is looked up in the cache but
    not asked about; resolving forgives it. ``MAX_FAILED`` names are remembered, the oldest
    forgotten first (it then costs at most one more resolve).
  - The tables shown are bounded (``Shown``, sans-IO, tested alone): at most ``MAX_SHOWN``; a
    table that comes when it is full takes the place of the newest table of the address that
    shows the most, so a flood of well-formed tables neither grows a browser without end nor
    keeps the other addresses' tables out, and a table it displaced is shown again when a
    place frees or at the next recheck (``RECHECK_INTERVAL``), oldest first.
  - A resolve carries a ticket: a name settled meanwhile (its goodbye, or its records in the
    cache) makes its answer count for nothing, so an old answer never overwrites a newer one.
* **Goodbyes.** A goodbye (a record with a time to live of 0) proves nothing about who sent
  it: any stranger can send one for a table's PTR, SRV, TXT or A record (all of them are in its
  ad, and a table in play has predictable names), again and again. So a goodbye for a table we
  show is a doubt, never a verdict: the table stays shown while ``Doubts`` (sans-IO, tested
  alone) checks it, and the owner's answer is what decides.
  - A checker task asks one question for every table in doubt: the PTR question of the type
    (QM), with the PTR records of the tables we show and do not doubt as known answers (at most
    ``KNOWN_ANSWERS``, one packet's worth, drawn at random), so that mostly the owners of the
    tables in doubt answer, each with its PTR record and, as DNS-SD additionals
    (RFC 6763 §12.1), its SRV, TXT and A records. The browser hears the name anew, which clears
    its doubt, and reads its records from the cache. Its batches keep a name heard anew even when
    a goodbye follows it at once, so a stranger answering each answer with a goodbye gains
    nothing but a new doubt.
  - The question goes out as soon as a doubt starts, unless it went out less than
    ``QUESTION_INTERVAL`` (1 s, RFC 6762 §5.2) before, and then once per interval while any
    table is in doubt: goodbyes, however many and for however many tables, cost each browser at
    most one question a second, and each owner, which multicasts a record at most once a
    second, at most one answer a second.
  - A table whose owner has not answered within ``CHECK_TIMEOUT`` (2.5 s: at least two
    questions) is told removed: an owner that really withdrew answers no more, so its goodbye
    takes effect within 2.5 s. A goodbye for a table in doubt does not extend its check.
  - The question is asked even when the cache still holds the table's SRV, TXT and A records (a
    stranger may send a goodbye for the PTR alone): zeroconf tells the goodbye of a PTR record
    only while it holds that record, so without the owner's answer putting the PTR back, the
    owner's real goodbye later would go unheard and its table would be shown forever.
* **A table in play** is announced again by each of its peers, for spectators: one service per
  peer, ``spycraft-<table id hex>-<from>`` where ``from`` is the seat number or ``host``, with two
  more TXT keys: ``watch`` (how many watch through this peer) and ``from``. Its seats read
  full, so nobody tries to join it; ``spycraft watch`` connects to any of them.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import re
import secrets
import socket
import sys
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Self, TypeVar

import ifaddr
import trio
from zeroconf import (
    DNSQuestionType,
    IPVersion,
    NonUniqueNameException,
    ServiceBrowser,
    ServiceStateChange,
    Zeroconf,
    current_time_millis,
)
from zeroconf import Error as ZeroconfError
from zeroconf._dns import DNSPointer, DNSQuestion
from zeroconf._protocol.outgoing import DNSOutgoing
from zeroconf.asyncio import AsyncServiceInfo
from zeroconf.const import _CLASS_IN, _FLAGS_QR_QUERY, _TYPE_PTR

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.hashing import tagged_hash
from spycraft.crypto.text import is_printable, printable

log = logging.getLogger(__name__)

SERVICE_TYPE = "_spycraft._tcp.local."
NAME_PREFIX = "spycraft-"
TABLE_ID_SIZE = 16
OPTIONS_DIGEST_SIZE = 32
MAX_SEATS = 64
TXT_KEYS = ("v", "game", "opt", "o", "seats", "table", "fp")
WATCH_KEYS = ("watch", "from")
"""Present together, and only in the ad of a table in play."""
NAME_KEY = "n"
MAX_OPTIONS = 16
MAX_OPTIONS_TEXT = 200
MAX_NAME = 64
MAX_NAME_BYTES = 200  # a TXT entry holds 255 bytes
UNREGISTER_TIMEOUT = 5.0

_GAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_FINGERPRINT = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SEATS = re.compile(r"([0-9]{1,2})/([0-9]{1,2})")
_VERSION = re.compile(r"[1-9][0-9]{0,5}")
_WATCHING = re.compile(r"0|[1-9][0-9]{0,3}")
_FROM = re.compile(r"host|0|[1-9][0-9]?")
_OPTION_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_OPTION_CHOICE = re.compile(r"[A-Za-z0-9_.-]{1,32}")
_OPTION_INTEGER = re.compile(r"0|-?[1-9][0-9]{0,18}")  # canonical decimal: one integer, one text
_INTEGER_RANGE = range(-(2**63), 2**63)

T = TypeVar("T")
AdChange = Literal["added", "updated", "removed"]


class DiscoveryError(SpycraftError):
    """A bad interface, a table ad we refuse to send or accept, or a name conflict."""


class OtherVersion(DiscoveryError):
    """A table ad of another protocol version (another spycraft release): nobody of ours can
    join or watch its table. ``version`` is the ad's."""

    def __init__(self, version: int) -> None:
        self.version = version
        super().__init__(f"protocol version {version}, we speak {PROTOCOL_VERSION}")


# --- interfaces ---------------------------------------------------------------------------------

# Linux interface flags (<linux/if.h>), read from /sys/class/net/NAME/flags.
_IFF_UP = 0x1
_IFF_LOOPBACK = 0x8
_IFF_POINTOPOINT = 0x10
_IFF_MULTICAST = 0x1000
_RTF_UP = 0x1
# An address of TEST-NET-1 (RFC 5737): connect() on a UDP socket only asks the kernel for a
# route to it, so the socket's own address is the source address of the default route.
_ROUTE_PROBE = ("192.0.2.1", 9)
# Names that VPN and tunnel software gives its interfaces; used only where flags are not known.
_TUNNEL_NAMES = re.compile(
    r"^(utun|tun|tap|ppp|ipsec|wg|gif|stf|zt|tailscale)\d*|vpn|wireguard|tunnel|anyconnect",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NetworkInterface:
    """One network interface with its IPv4 addresses, as this machine reports it.

    ``up``, ``multicast`` and ``point_to_point`` are None where the platform does not tell
    (Linux tells; ifaddr, our portable source, does not report flags on macOS or Windows).
    ``default_route`` is None when it could not be learned at all.
    """

    name: str
    label: str  # the name a person knows it by: "Wi-Fi" on Windows, else the same as name
    addresses: tuple[str, ...]
    prefixes: tuple[int, ...]
    loopback: bool
    up: bool | None
    multicast: bool | None
    point_to_point: bool | None
    default_route: bool | None

    @property
    def address(self) -> str:
        return self.addresses[0]

    @property
    def can_carry_a_table(self) -> bool:
        """Up, multicast-capable, not loopback, not a tunnel, as far as this machine tells."""
        return (
            not self.loopback
            and self.up is not False
            and self.multicast is not False
            and self.point_to_point is not True
        )

    def describe(self) -> str:
        name = self.name if self.label == self.name else f"{self.label} ({self.name})"
        where = ", ".join(f"{a}/{p}" for a, p in zip(self.addresses, self.prefixes))
        facts = ["loopback"] if self.loopback else []
        for fact, value in (("up", self.up), ("multicast", self.multicast)):
            if value is not None:
                facts.append(fact if value else f"not {fact}")
        if self.point_to_point:
            facts.append("point-to-point (a VPN or tunnel)")
        if self.default_route:
            facts.append("default route")
        return f"{name} {where} [{', '.join(facts) or 'state not reported'}]"


@dataclass(frozen=True)
class InterfaceChoice:
    """The interface a table would use, and why; ``warning``: the person should be told."""

    interface: NetworkInterface
    reason: str
    warning: bool = False


def network_interfaces() -> tuple[NetworkInterface, ...]:
    """Every interface of this machine with at least one IPv4 address (ifaddr, any platform)."""
    found: list[tuple[str, str, list[tuple[str, int]]]] = []
    for adapter in ifaddr.get_adapters():
        ipv4 = [(ip.ip, ip.network_prefix) for ip in adapter.ips if isinstance(ip.ip, str)]
        if not ipv4:
            continue
        friendly = next((ip.nice_name for ip in adapter.ips if ip.nice_name), adapter.nice_name)
        found.append((adapter.name, friendly or adapter.name, ipv4))
    default = _default_route(found)
    result = []
    for name, label, ipv4 in found:
        addresses = tuple(a for a, _ in ipv4)
        flags = _linux_flags(name)
        loopback = all(ipaddress.IPv4Address(a).is_loopback for a in addresses)
        if flags is not None:
            bits, operstate = flags
            result.append(NetworkInterface(
                name=name, label=label, addresses=addresses, prefixes=tuple(p for _, p in ipv4),
                loopback=loopback or bool(bits & _IFF_LOOPBACK),
                up=bool(bits & _IFF_UP) and operstate in ("up", "unknown"),
                multicast=bool(bits & _IFF_MULTICAST),
                point_to_point=bool(bits & _IFF_POINTOPOINT),
                default_route=None if default is None else name == default,
            ))
        else:
            tunnel = bool(_TUNNEL_NAMES.search(name) or _TUNNEL_NAMES.search(label))
            result.append(NetworkInterface(
                name=name, label=label, addresses=addresses, prefixes=tuple(p for _, p in ipv4),
                loopback=loopback, up=None, multicast=None, point_to_point=tunnel or None,
                default_route=None if default is None else name == default,
            ))
    return tuple(result)


def _linux_flags(name: str) -> tuple[int, str] | None:
    """(IFF flags, operstate) of a Linux interface, or None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    folder = Path("/sys/class/net") / name.split(":")[0]  # "eth0:1" is an alias of eth0
    try:
        flags = int((folder / "flags").read_text().strip(), 16)
        operstate = (folder / "operstate").read_text().strip()
    except (OSError, ValueError):
        return None
    return flags, operstate


def _default_route(found: list[tuple[str, str, list[tuple[str, int]]]]) -> str | None:
    """The name of the interface that holds the IPv4 default route, "" for none, None unknown."""
    if sys.platform.startswith("linux"):
        try:
            table = Path("/proc/net/route").read_text()
        except OSError:
            table = None
        if table is not None:
            routes = []
            for line in table.splitlines()[1:]:
                fields = line.split()
                default = len(fields) >= 8 and fields[1] == fields[7] == "00000000"
                if default and int(fields[3], 16) & _RTF_UP:
                    routes.append((int(fields[6]), fields[0]))
            return min(routes)[1] if routes else ""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_ROUTE_PROBE)  # picks a route; sends nothing
            source: str = probe.getsockname()[0]
    except OSError:
        return ""  # no route to a global address: no default route
    return next((name for name, _, ipv4 in found if source in (a for a, _ in ipv4)), None)


def choose_interface(interfaces: Sequence[NetworkInterface]) -> InterfaceChoice:
    """The interface a table uses when the person names none.

    The default route's interface if it can carry a table; else the only interface that can;
    else, with several and no default route among them, ``DiscoveryError`` naming them (the
    person must pick one with ``--interface``); with none at all, loopback, with a warning
    that only this machine will see the table.
    """
    usable = [i for i in interfaces if i.can_carry_a_table]
    default = next((i for i in interfaces if i.default_route), None)
    if default is not None and default in usable:
        return InterfaceChoice(default, f"{default.label} holds the default route")
    detour = (
        f"the default route goes through {default.label}, which cannot carry a table "
        f"(a VPN or tunnel?); " if default is not None else "no default route; "
    )
    if len(usable) == 1:
        return InterfaceChoice(usable[0], f"{detour}{usable[0].label} is the only LAN interface")
    if len(usable) > 1:
        listed = ", ".join(f"{i.label} ({i.address})" for i in usable)
        raise DiscoveryError(
            f"{detour}several interfaces could carry a table: {listed}; "
            f"choose one with --interface NAME"
        )
    loopback = next((i for i in interfaces if i.loopback), None)
    if loopback is None:
        raise DiscoveryError("this machine has no IPv4 interface at all")
    return InterfaceChoice(
        loopback,
        f"{detour}no LAN interface is up, so only this machine will see the table "
        f"({loopback.address})",
        warning=True,
    )


def default_interface() -> InterfaceChoice:
    """``choose_interface`` over this machine's interfaces."""
    return choose_interface(network_interfaces())


def find_interface(interface: str, interfaces: Sequence[NetworkInterface] | None = None
                   ) -> NetworkInterface:
    """The interface named by ``interface``: one of its IPv4 addresses, or its name (on Windows
    also its friendly name, such as "Wi-Fi"). ``DiscoveryError`` in one line otherwise."""
    known = network_interfaces() if interfaces is None else tuple(interfaces)
    try:
        address = ipaddress.IPv4Address(interface)
    except ValueError:
        address = None
    if address is not None:
        if address.is_unspecified or address.is_multicast:
            raise DiscoveryError(f"{interface} names no single interface")
        for candidate in known:
            if interface in candidate.addresses:  # this address first: it is the one used
                pairs = sorted(zip(candidate.addresses, candidate.prefixes),
                               key=lambda pair: pair[0] != interface)
                return replace(candidate, addresses=tuple(a for a, _ in pairs),
                               prefixes=tuple(p for _, p in pairs))
        mine = ", ".join(a for i in known for a in i.addresses) or "none"
        raise DiscoveryError(
            f"{interface} is not an address of this machine (its IPv4 addresses: {mine})"
        )
    for candidate in known:
        if interface in (candidate.name, candidate.label):
            return candidate
    names = ", ".join(i.label for i in known) or "none"
    raise DiscoveryError(
        f"no IPv4 address or network interface called {interface!r} on this machine "
        f"(its interfaces with IPv4: {names})"
    )


def interface_address(interface: str) -> str:
    """The IPv4 address to use for ``interface``: an address of this machine, or an interface
    name (its first IPv4 address). ``DiscoveryError`` if this machine has no such thing."""
    return find_interface(interface).address


# --- TXT records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableAd:
    """One table as announced. ``change`` says what happened to it."""

    change: AdChange
    name: str
    table_id: bytes
    game: str
    options_digest: bytes
    seats_taken: int
    seats_total: int
    fingerprint: str
    version: int
    address: str
    port: int
    watching: int | None = None  # None: an open table; else one peer's ad of a table in play
    source: str | None = None  # which peer: its seat number, or "host"
    options: tuple[tuple[str, OptionValue], ...] = ()  # sorted by name; they hash to the digest
    opener: str | None = None  # the name the opener gave (printable), when the ad carries it


OptionValue = bool | str | int


@dataclass(frozen=True)
class TableTxt:
    table_id: bytes
    game: str
    options_digest: bytes
    seats_taken: int
    seats_total: int
    fingerprint: str
    version: int
    watching: int | None = None
    source: str | None = None
    options: tuple[tuple[str, OptionValue], ...] = ()
    opener: str | None = None


def options_digest(game: str, options: Mapping[str, Any]) -> bytes:
    """What an ad says of a table's options (a joiner checks the roster's options against it)."""
    return tagged_hash("options", [game, dict(options)])


def encode_options(options: Mapping[str, Any]) -> str:
    """The ``o`` value of an ad: ``+name`` for yes, ``-name`` for no, ``name:choice``, ``name=N``
    for an integer, sorted by name, comma-separated. ``DiscoveryError`` for options an ad cannot
    carry (too many, too long, or a value that is neither yes/no, a short choice nor an integer
    within 64 bits)."""
    if len(options) > MAX_OPTIONS:
        raise DiscoveryError(f"an ad carries at most {MAX_OPTIONS} options")
    parts = []
    for name in sorted(options):
        value = options[name]
        if not isinstance(name, str) or not _OPTION_NAME.fullmatch(name):
            raise DiscoveryError(f"option name {name!r} cannot go in an ad")
        if isinstance(value, bool):
            parts.append(("+" if value else "-") + name)
        elif isinstance(value, str) and _OPTION_CHOICE.fullmatch(value):
            parts.append(f"{name}:{value}")
        elif type(value) is int and value in _INTEGER_RANGE:
            parts.append(f"{name}={value}")
        else:
            raise DiscoveryError(f"option {name} = {value!r} cannot go in an ad")
    text = ",".join(parts)
    if len(text) > MAX_OPTIONS_TEXT:
        raise DiscoveryError(f"the options take more than {MAX_OPTIONS_TEXT} bytes in an ad")
    return text


def decode_options(text: str) -> tuple[tuple[str, OptionValue], ...]:
    """The options of an ad's ``o`` value, strictly: exactly what ``encode_options`` writes."""
    if len(text) > MAX_OPTIONS_TEXT:
        raise DiscoveryError(f"o is longer than {MAX_OPTIONS_TEXT} bytes")
    if not text:
        return ()
    found: list[tuple[str, OptionValue]] = []
    for part in text.split(","):
        value: OptionValue
        if part[:1] in ("+", "-"):
            name, value = part[1:], part[0] == "+"
        elif "=" in part:
            name, _, number = part.partition("=")
            if not _OPTION_INTEGER.fullmatch(number) or int(number) not in _INTEGER_RANGE:
                raise DiscoveryError("o gives an integer option in canonical decimal, in 64 bits")
            value = int(number)
        else:
            name, colon, value = part.partition(":")
            if not colon or not _OPTION_CHOICE.fullmatch(value):
                raise DiscoveryError("o entries read +name, -name, name:choice or name=N")
        if not _OPTION_NAME.fullmatch(name):
            raise DiscoveryError("o names an option badly")
        found.append((name, value))
    names = [name for name, _ in found]
    if len(found) > MAX_OPTIONS or names != sorted(set(names)):
        raise DiscoveryError(f"o holds at most {MAX_OPTIONS} options, once each, sorted")
    return tuple(found)


def service_name(table_id: bytes, source: str | None = None) -> str:
    """``spycraft-<table>`` for an open table, ``spycraft-<table>-<source>`` for one peer's ad
    of a table in play."""
    suffix = "" if source is None else f"-{source}"
    return f"{NAME_PREFIX}{table_id.hex()}{suffix}.{SERVICE_TYPE}"


def _txt_properties(txt: TableTxt) -> dict[str, str]:
    return {
        "v": str(txt.version),
        "game": txt.game,
        "opt": txt.options_digest.hex(),
        "o": encode_options(dict(txt.options)),
        "seats": f"{txt.seats_taken}/{txt.seats_total}",
        "table": txt.table_id.hex(),
        "fp": txt.fingerprint,
    } | ({} if txt.watching is None or txt.source is None
         else {"watch": str(txt.watching), "from": txt.source}) | (
        {} if txt.opener is None else {NAME_KEY: txt.opener})


def _txt_bytes(properties: dict[str, str]) -> bytes:
    entries = [f"{k}={v}".encode() for k, v in properties.items()]
    return b"".join(bytes((len(e),)) + e for e in entries)


def _hex(value: str, size: int, what: str) -> bytes:
    if not re.fullmatch(r"[0-9a-f]*", value) or len(value) != 2 * size:
        raise DiscoveryError(f"{what} must be {2 * size} lowercase hex digits")
    return bytes.fromhex(value)


def parse_table_txt(text: bytes) -> TableTxt:
    """The fields of a TXT record (RFC 6763 §6 wire form), strictly: every key exactly once,
    every value well formed. Unknown keys are ignored (RFC 6763 §6.4); a newer protocol
    version is rejected, since we could not join its table anyway."""
    properties: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        length = text[pos]
        entry = text[pos + 1 : pos + 1 + length]
        if len(entry) != length:
            raise DiscoveryError("truncated TXT record")
        pos += 1 + length
        key_bytes, sep, value_bytes = entry.partition(b"=")
        try:
            key = key_bytes.decode("ascii")
            value = value_bytes.decode("utf-8" if key == NAME_KEY else "ascii")
        except UnicodeDecodeError:
            raise DiscoveryError("TXT entry is not ASCII (or, for a name, UTF-8)") from None
        if key not in TXT_KEYS + WATCH_KEYS + (NAME_KEY,):
            continue
        if not sep:
            raise DiscoveryError(f"TXT key {key!r} has no value")
        if key in properties:
            raise DiscoveryError(f"TXT key {key!r} appears twice")
        properties[key] = value
    missing = [k for k in TXT_KEYS if k not in properties]
    if missing:
        raise DiscoveryError(f"TXT record lacks {missing}")
    if not _VERSION.fullmatch(properties["v"]):
        raise DiscoveryError("v must be a positive decimal integer")
    version = int(properties["v"])
    if version != PROTOCOL_VERSION:
        raise OtherVersion(version)
    if not _GAME.fullmatch(properties["game"]):
        raise DiscoveryError("game must be a short lowercase name")
    if not _FINGERPRINT.fullmatch(properties["fp"]):
        raise DiscoveryError("fp must be 1-64 letters, digits, '-' or '_'")
    seats = _SEATS.fullmatch(properties["seats"])
    if not seats:
        raise DiscoveryError("seats must read taken/total")
    taken, total = int(seats[1]), int(seats[2])
    if not (0 <= taken <= total and 1 <= total <= MAX_SEATS):
        raise DiscoveryError(f"impossible seats {taken}/{total}")
    watching, source = properties.get("watch"), properties.get("from")
    if (watching is None) != (source is None):
        raise DiscoveryError("watch and from go together")
    if watching is not None and not _WATCHING.fullmatch(watching):
        raise DiscoveryError("watch must be a count")
    if source is not None and not _FROM.fullmatch(source):
        raise DiscoveryError("from must be a seat number or host")
    options = decode_options(properties["o"])
    digest = _hex(properties["opt"], OPTIONS_DIGEST_SIZE, "opt")
    if options_digest(properties["game"], dict(options)) != digest:
        raise DiscoveryError("the options in the ad do not match its options digest")
    opener = properties.get(NAME_KEY)
    if opener is not None and not (0 < len(opener) <= MAX_NAME and is_printable(opener)
                                   and len(opener.encode()) <= MAX_NAME_BYTES
                                   and opener.strip() == opener):
        raise DiscoveryError(f"n must be a printable name of 1-{MAX_NAME} characters")
    return TableTxt(
        table_id=_hex(properties["table"], TABLE_ID_SIZE, "table"),
        game=properties["game"],
        options_digest=digest,
        seats_taken=taken,
        seats_total=total,
        fingerprint=properties["fp"],
        version=version,
        watching=None if watching is None else int(watching),
        source=source,
        options=options,
        opener=opener,
    )


def parse_service_info(info: AsyncServiceInfo, change: AdChange) -> TableAd:
    """A resolved service -> a TableAd, or ``DiscoveryError`` with the reason."""
    txt = parse_table_txt(info.text or b"")
    if info.name.lower() != service_name(txt.table_id, txt.source):
        raise DiscoveryError(f"service name does not match table {txt.table_id.hex()}")
    addresses = info.parsed_addresses(IPVersion.V4Only)
    if not addresses:
        raise DiscoveryError("no IPv4 address")
    if info.port is None or not 0 < info.port < 65536:
        raise DiscoveryError("no valid port")
    return TableAd(
        change=change,
        name=info.name,
        table_id=txt.table_id,
        game=txt.game,
        options_digest=txt.options_digest,
        seats_taken=txt.seats_taken,
        seats_total=txt.seats_total,
        fingerprint=txt.fingerprint,
        version=txt.version,
        address=addresses[0],
        port=info.port,
        watching=txt.watching,
        source=txt.source,
        options=txt.options,
        opener=txt.opener,
    )


# --- the bridge between zeroconf's thread and trio ----------------------------------------------


class ZeroconfBridge:
    """One Zeroconf instance on one interface, used from trio. Open with ``open_zeroconf``."""

    def __init__(self, zc: Zeroconf, address: str, token: trio.lowlevel.TrioToken) -> None:
        self.zc = zc
        self.address = address
        self._token = token

    async def call(self, make_coroutine: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """Run a zeroconf coroutine on zeroconf's loop and await its result from trio."""
        loop = self.zc.loop
        assert loop is not None, "zeroconf has no running loop"
        future = asyncio.run_coroutine_threadsafe(make_coroutine(), loop)
        done = trio.Event()

        def wake(_: object) -> None:
            try:
                self._token.run_sync_soon(done.set)
            except trio.RunFinishedError:
                pass

        future.add_done_callback(wake)
        try:
            await done.wait()
        finally:
            if not future.done():
                future.cancel()
        return future.result()

    @asynccontextmanager
    async def browse(self, service_type: str) -> AsyncIterator[_BrowseEvents]:
        """Watch ``service_type``; the events arrive coalesced per service name."""
        events = _BrowseEvents()

        def on_change(
            zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
        ) -> None:  # zeroconf's thread; it passes these by keyword
            try:
                self._token.run_sync_soon(events.note, name, state_change)
            except trio.RunFinishedError:
                pass

        browser = await trio.to_thread.run_sync(
            lambda: ServiceBrowser(self.zc, service_type, handlers=[on_change])
        )
        try:
            yield events
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(browser.cancel)


@dataclass(frozen=True)
class _Batch:
    """Browser events coalesced: the latest state change of each service name, and the names
    whose PTR record was heard anew (``Added``) in the batch, even if a goodbye followed."""

    changes: dict[str, ServiceStateChange]
    heard: set[str]


class _BrowseEvents:
    """Browser events waiting for trio, coalesced per service name (``_Batch``): a stranger's
    goodbye sent just after an owner's answer hides neither from the follower."""

    def __init__(self) -> None:
        self._pending: dict[str, ServiceStateChange] = {}
        self._heard: set[str] = set()
        self._arrived = trio.Event()

    def note(self, name: str, state_change: ServiceStateChange) -> None:
        self._pending[name] = state_change
        if state_change is ServiceStateChange.Added:
            self._heard.add(name)
        self._arrived.set()

    async def next_batch(self) -> _Batch:
        await self._arrived.wait()
        batch = _Batch(self._pending, self._heard)
        self._pending, self._heard = {}, set()
        self._arrived = trio.Event()
        return batch


@asynccontextmanager
async def open_zeroconf(interface: str) -> AsyncIterator[ZeroconfBridge]:
    """Zeroconf on one interface (IPv4 address or name), closed on exit even when cancelled."""
    address = interface_address(interface)
    zc = await trio.to_thread.run_sync(
        lambda: Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only)
    )
    try:
        yield ZeroconfBridge(zc, address, trio.lowlevel.current_trio_token())
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(zc.close)


@asynccontextmanager
async def _bridge_for(where: str | ZeroconfBridge) -> AsyncIterator[ZeroconfBridge]:
    if isinstance(where, ZeroconfBridge):
        yield where
        return
    async with open_zeroconf(where) as bridge:
        yield bridge


# --- announcing ---------------------------------------------------------------------------------


class Announcer:
    """Announces one open table while the context is open.

    ``where`` is an interface (IPv4 address or name) or an open ``ZeroconfBridge`` to share.
    ``port`` is the TCP port peers connect to, on the interface's address.
    """

    def __init__(
        self,
        where: str | ZeroconfBridge,
        *,
        port: int,
        game: str,
        options: Mapping[str, Any],
        table_id: bytes,
        fingerprint: str,
        seats_total: int,
        seats_taken: int = 1,
        cooperating_responders: bool = False,
        watching: int | None = None,
        source: str | None = None,
        opener: str | None = None,
    ) -> None:
        self._where = where
        self._port = port
        if opener is not None:  # a name is shown to strangers: printable, bounded, or none
            opener = printable(opener).strip()[:MAX_NAME]
            while len(opener.encode()) > MAX_NAME_BYTES:
                opener = opener[:-1]
            opener = opener.strip() or None
        self._txt = TableTxt(
            table_id=table_id,
            game=game,
            options_digest=options_digest(game, options),
            options=tuple(sorted(options.items())),
            opener=opener,
            seats_taken=seats_taken,
            seats_total=seats_total,
            fingerprint=fingerprint,
            version=PROTOCOL_VERSION,
            watching=watching,
            source=source,
        )
        self._check(self._txt)
        if not 0 < port < 65536:
            raise DiscoveryError(f"port {port} out of range")
        self._cooperating = cooperating_responders
        self._bridge: ZeroconfBridge | None = None
        self._info: AsyncServiceInfo | None = None
        # The first announcements' broadcast (three, 0.225 s apart), which goes on after the
        # ad is registered; stopped before an update's broadcast and before the goodbyes, so
        # an older ad never follows a newer one, nor a withdrawn one its goodbye.
        self._announcing: asyncio.Future[Any] | None = None
        self._stack = AsyncExitStack()

    @staticmethod
    def _check(txt: TableTxt) -> None:
        """We only announce what our own browser would accept."""
        if parse_table_txt(_txt_bytes(_txt_properties(txt))) != txt:
            raise DiscoveryError("table ad does not survive a round trip")

    @property
    def name(self) -> str:
        return service_name(self._txt.table_id, self._txt.source)

    def _service_info(self, bridge: ZeroconfBridge) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            SERVICE_TYPE,
            self.name,
            port=self._port,
            properties=_txt_properties(self._txt),
            server=self.name.removesuffix(SERVICE_TYPE) + "local.",
            addresses=[socket.inet_aton(bridge.address)],
        )

    async def __aenter__(self) -> Self:
        async with AsyncExitStack() as stack:
            bridge = await stack.enter_async_context(_bridge_for(self._where))
            info = self._service_info(bridge)
            zc = bridge.zc

            async def register() -> None:  # (the name probed unique; the ad is not awaited)
                announcing = await zc.async_register_service(
                    info, cooperating_responders=self._cooperating
                )
                self._announcing = asyncio.ensure_future(announcing)

            try:
                await bridge.call(register)
            except NonUniqueNameException:
                raise DiscoveryError(f"another responder already announces {self.name}") from None
            self._bridge, self._info = bridge, info
            stack.push_async_callback(self._withdraw)
            self._stack = stack.pop_all()
        return self

    async def update(self, seats_taken: int | None = None, watching: int | None = None) -> None:
        """Republish the ad with a new count of taken seats, or of spectators."""
        if self._bridge is None:
            raise DiscoveryError("update() outside the Announcer context")
        txt = replace(self._txt, seats_taken=self._txt.seats_taken if seats_taken is None
                      else seats_taken, watching=self._txt.watching if watching is None
                      else watching)
        self._check(txt)
        self._txt = txt
        info = self._service_info(self._bridge)
        zc = self._bridge.zc

        async def republish() -> None:
            self._stop_announcing()
            await (await zc.async_update_service(info))

        # (the goodbyes name the latest info even when this is cancelled: an update cancelled
        # after its first announcement went out, or before zeroconf took it, is withdrawn by
        # the name both share)
        self._info = info
        await self._bridge.call(republish)

    async def _withdraw(self) -> None:
        """Unregister (goodbye packets), even when the caller is being cancelled."""
        bridge, info = self._bridge, self._info
        self._bridge = self._info = None
        if bridge is None or info is None:
            return
        zc = bridge.zc

        async def unregister() -> None:
            self._stop_announcing()
            await (await zc.async_unregister_service(info))

        with trio.CancelScope(shield=True) as scope:
            scope.deadline = trio.current_time() + UNREGISTER_TIMEOUT
            await bridge.call(unregister)

    def _stop_announcing(self) -> None:
        """On zeroconf's loop: end the first announcements' broadcast if it still runs."""
        announcing, self._announcing = self._announcing, None
        if announcing is not None:
            announcing.cancel()

    async def __aexit__(self, *exc_info: object) -> None:
        stack, self._stack = self._stack, AsyncExitStack()
        await stack.aclose()


# --- browsing -----------------------------------------------------------------------------------

RESOLVERS = 8
"""Names asked about on the network at once, each for at most the resolve timeout."""
MAX_WAITING = 512
"""Names waiting for a resolver. A stranger can announce thousands: past this, the waiting names
are a random sample of all those heard since none waited, each as likely to be in it."""
BACKOFF_FIRST = 30.0
BACKOFF_MOST = 600.0
"""A name that did not resolve is not asked about again for 30 s, then 60, 120, ... 600 s."""
MAX_FAILED = 4096
"""Names whose failures are remembered; past this the one remembered longest is forgotten."""
CHECK_TIMEOUT = 2.5
"""A table a goodbye named is told removed if its owner has not answered within this."""
QUESTION_INTERVAL = 1.0
"""The question that checks goodbyes goes out at most this often (RFC 6762 §5.2: one second)."""
KNOWN_ANSWERS = 16
"""Known answers in that question at most: one packet's worth (about 60 bytes each), drawn at
random from the tables shown and not in doubt; the owners of the others answer too."""
MAX_SHOWN = 512
"""Tables a browser shows at most; past this a new one takes the place of the newest of the
address that shows the most (``Shown``)."""
RECHECK_INTERVAL = 2.0
"""While tables are turned away, the oldest is shown again this often (if its records are still
in the cache)."""


class ResolveQueue:
    """Which service names to ask the network about, in which order, and which not yet: sans-IO
    (the shell passes the time in; ``choose(n)`` draws an index below n).

    A name whose records the cache lacks is ``heard``; a resolver ``take``s a name at random
    with a ticket and reports it ``finished`` with that ticket: a name that did not resolve is
    backed off, and one that did is forgiven. ``settled`` forgets a name the cache resolved or
    a goodbye removed, so a resolve of it still in flight no longer counts.
    """

    def __init__(self, *, waiting: int = MAX_WAITING, remembered: int = MAX_FAILED,
                 choose: Callable[[int], int] = secrets.randbelow) -> None:
        self._limit = waiting
        self._remembered = remembered
        self._choose = choose
        self._waiting: list[str] = []
        self._index: dict[str, int] = {}  # a waiting name -> its place in _waiting
        self._flying: dict[str, int] = {}  # a name being resolved -> its resolve's ticket
        self._failed: dict[str, tuple[float, int]] = {}  # name -> (backed off until, failures)
        self._tickets = 0
        self._offered = 0  # names offered to wait since none waited

    def __len__(self) -> int:
        """How many names wait for a resolver."""
        return len(self._waiting)

    def backed_off(self, name: str, now: float) -> bool:
        """Whether ``name`` did not resolve and its pause has not ended."""
        failed = self._failed.get(name)
        return failed is not None and now < failed[0]

    def heard(self, name: str, now: float) -> None:
        """A name whose records the cache lacks: it waits, unless it is waiting or being
        resolved already, or backed off."""
        if name in self._flying or name in self._index or self.backed_off(name, now):
            return
        self._offered += 1
        if len(self._waiting) < self._limit:
            self._index[name] = len(self._waiting)
            self._waiting.append(name)
            return
        place = self._choose(self._offered)  # a reservoir sample (Vitter's algorithm R)
        if place < self._limit:
            del self._index[self._waiting[place]]
            self._waiting[place] = name
            self._index[name] = place

    def take(self) -> tuple[str, int] | None:
        """A waiting name drawn at random, with its resolve's ticket; None when none waits."""
        if not self._waiting:
            return None
        name = self._waiting[self._choose(len(self._waiting))]
        self._unwait(name)
        self._tickets += 1
        self._flying[name] = self._tickets
        return name, self._tickets

    def finished(self, name: str, ticket: int, resolved: bool, now: float) -> bool:
        """Whether the resolve of ``ticket`` still counts (the name was not settled meanwhile)."""
        if self._flying.get(name) != ticket:
            return False
        del self._flying[name]
        _, failures = self._failed.pop(name, (0.0, 0))
        if not resolved:
            if len(self._failed) >= self._remembered:
                del self._failed[next(iter(self._failed))]
            pause = min(BACKOFF_MOST, BACKOFF_FIRST * 2.0 ** min(failures, 16))
            self._failed[name] = (now + pause, failures + 1)
        return True

    def settled(self, name: str) -> None:
        """Forget a name the cache resolved or a goodbye removed (its failures are kept)."""
        self._unwait(name)
        self._flying.pop(name, None)

    def _unwait(self, name: str) -> None:
        place = self._index.pop(name, None)
        if place is None:
            return
        last = self._waiting.pop()
        if last != name:
            self._waiting[place] = last
            self._index[last] = place
        if not self._waiting:
            self._offered = 0


class Doubts:
    """Tables a goodbye named, each still shown until its owner answers or its check times out:
    sans-IO (the shell passes the time in).

    ``doubt`` starts a table's check (a goodbye for a table in doubt does not extend it);
    ``ask`` says whether the one question for every doubt goes out now, at most once per
    ``QUESTION_INTERVAL``; ``clear`` ends a check (its owner answered, or the table is gone);
    ``expired`` takes the tables whose check ran out; ``wake_at`` says when to look again.
    A check can be about a table's records (they made no valid ad) rather than a goodbye
    (``about_records``): the mark ends with the check, by ``clear``.
    """

    def __init__(self, *, timeout: float = CHECK_TIMEOUT,
                 interval: float = QUESTION_INTERVAL) -> None:
        self._timeout = timeout
        self._interval = interval
        self._until: dict[str, float] = {}  # a table in doubt -> when its check ends
        self._records: set[str] = set()  # checks about records (kept past ``expired``)
        self._asked = -math.inf  # when the question last went out

    def __len__(self) -> int:
        return len(self._until)

    def __contains__(self, name: object) -> bool:
        return name in self._until

    def doubt(self, name: str, now: float, *, records: bool = False) -> bool:
        """A goodbye for ``name`` (``records``: its records made no valid ad): whether it starts
        a check (it was not in doubt already: a goodbye's check stays one)."""
        if name in self._until:
            return False
        self._until[name] = now + self._timeout
        if records:
            self._records.add(name)
        return True

    def about_records(self, name: str) -> bool:
        """Whether the check of ``name`` (running, or just expired) is about its records."""
        return name in self._records

    def clear(self, name: str) -> bool:
        """End the check of ``name`` (an expired one's mark too); whether it was in doubt."""
        self._records.discard(name)
        return self._until.pop(name, None) is not None

    def ask(self, now: float) -> bool:
        """Whether the question goes out now: some table is in doubt, and it last went out at
        least ``QUESTION_INTERVAL`` ago. Saying so counts as asking."""
        if not self._until or now < self._asked + self._interval:
            return False
        self._asked = now
        return True

    def expired(self, now: float) -> list[str]:
        """Take the tables whose check ran out unanswered."""
        gone = [name for name, until in self._until.items() if until <= now]
        for name in gone:
            del self._until[name]
        return gone

    def wake_at(self) -> float | None:
        """When a question or a check's end is next due; None while nothing is in doubt."""
        if not self._until:
            return None
        return min(self._asked + self._interval, *self._until.values())


class Shown:
    """The tables a browser shows, at most ``MAX_SHOWN``, shared between the addresses their ads
    name: sans-IO (``choose(n)`` draws below n; the shell passes ``secrets``').

    A stranger can announce thousands of well-formed tables that resolve (each is a valid ad),
    under any addresses it likes (an A record proves nothing), once, with a time to live of
    years. So a full browser never refuses a newcomer for good:

    * ``show`` puts it in the place of the newest table of the address that shows the most
      (ties drawn at random). A flood's addresses hold the most, so they give way first; and
      within an address the newest goes first, so a stranger who adds a table at another's
      address to make it the fullest displaces its own table, not the older one.
    * The displaced table is turned away, remembered with its age (when it was first shown):
      at most ``MAX_SHOWN`` of them; past that the newest of the address with the most waiting
      is forgotten, so a table alone at its address is forgotten last. ``turned_away`` hands
      back the oldest, which the shell shows again when a place frees, and every
      ``RECHECK_INTERVAL`` while any waits if its address shows fewer tables than the fullest
      (``may_return``: a stranger's old tables never come back in the place of a table of
      their own address) and the cache still holds its records: a table displaced by a flood
      from other addresses comes back within seconds.
    * Updating a shown table (another address included) never displaces anything and keeps its
      age. Records of a shown table that stop making a valid ad (a stranger's TXT for its name)
      change nothing shown: its owner is asked (which refreshes its records) and the last good
      ad stays; a goodbye for a table turned away is left to the recheck.

    What this does not stop: a stranger who keeps sending new tables at new addresses displaces
    a random address's newest table with each (one in ``MAX_SHOWN`` for a table alone at its
    address), which comes back at a recheck; and a stranger who claims a table's own address
    with more tables, sent before it (so that it is the newest at the fullest address), has it
    displaced by the next table from elsewhere, and a recheck never brings it back while its
    address is the fullest. Telling a real table from a claim needs the table itself to answer
    (a TCP hello), not its records: not done.
    """

    def __init__(self, *, most: int, choose: Callable[[int], int] = secrets.randbelow) -> None:
        self._most = most
        self._choose = choose
        self._ads: dict[str, TableAd] = {}
        self._at: dict[str, list[str]] = {}  # address -> the names of the tables shown there
        self._born: dict[str, int] = {}  # a name shown or turned away -> when first shown
        self._away: dict[str, str] = {}  # turned away, to show again -> its address
        self._clock = 0

    def __len__(self) -> int:
        return len(self._ads)

    def __contains__(self, name: object) -> bool:
        return name in self._ads

    def names(self) -> list[str]:
        return list(self._ads)

    def get(self, name: str) -> TableAd | None:
        return self._ads.get(name)

    @property
    def waiting(self) -> int:
        """How many tables are turned away, to show again."""
        return len(self._away)

    def is_turned_away(self, name: str) -> bool:
        return name in self._away

    def show(self, name: str, ad: TableAd) -> TableAd | None:
        """Show ``ad`` as ``name``: in place of its earlier ad, or, when the browser is full, in
        the place of the newest table of the address that shows the most, whose ad is returned
        (it is no longer shown, and is turned away)."""
        earlier = self._ads.get(name)
        if earlier is not None:
            self._ads[name] = ad
            if earlier.address != ad.address:
                self._leave(name, earlier.address)
                self._at.setdefault(ad.address, []).append(name)
            return None
        self._away.pop(name, None)  # shown again (with its age), before anything else is
        displaced = None
        if len(self._ads) >= self._most:
            most = max(len(names) for names in self._at.values())
            fullest = [names for address, names in self._at.items() if len(names) == most
                       and address != ad.address] or [self._at[ad.address]]
            names = fullest[self._choose(len(fullest))]
            newest = max(names, key=self._born.__getitem__)
            displaced = self._ads.pop(newest)
            self._leave(newest, displaced.address)
            self._turn_away(newest, displaced.address)
        if name not in self._born:
            self._clock += 1
            self._born[name] = self._clock
        self._ads[name] = ad
        self._at.setdefault(ad.address, []).append(name)
        return displaced

    def pop(self, name: str) -> TableAd | None:
        """The table ``name`` is gone (not shown, not turned away); its ad if it was shown."""
        ad = self._ads.pop(name, None)
        if ad is not None:
            self._leave(name, ad.address)
        self._away.pop(name, None)
        self._born.pop(name, None)
        return ad

    def turned_away(self, count: int) -> list[str]:
        """The ``count`` oldest tables turned away, oldest first. Each stays turned away until
        the shell shows it (``show``: with its age) or finds it gone (``pop``)."""
        return sorted(self._away, key=self._born.__getitem__)[:count]

    def may_return(self, ad: TableAd) -> bool:
        """Whether a table turned away may be shown again now: there is a free place, or its
        address shows fewer tables than the fullest (so it never displaces a table of its own
        address)."""
        if len(self._ads) < self._most:
            return True
        most = max(len(names) for names in self._at.values())
        return len(self._at.get(ad.address, ())) < most

    def _leave(self, name: str, address: str) -> None:
        names = self._at[address]
        names.remove(name)
        if not names:
            del self._at[address]

    def _turn_away(self, name: str, address: str) -> None:
        """Remember ``name`` to show again; past ``MAX_SHOWN`` waiting, forget the newest of the
        address with the most waiting (so a table alone at its address is forgotten last,
        however many older tables a flood turned away before it)."""
        self._away[name] = address
        if len(self._away) > self._most:
            at: dict[str, list[str]] = {}
            for waiting, where in self._away.items():
                at.setdefault(where, []).append(waiting)
            crowded = max(at.values(), key=lambda names: (
                len(names), max(self._born[n] for n in names)))
            newest = max(crowded, key=self._born.__getitem__)
            del self._away[newest]
            del self._born[newest]


@asynccontextmanager
async def browse_tables(
    where: str | ZeroconfBridge,
    *,
    resolve_timeout: float = 3.0,
    buffer: int = 64,
) -> AsyncIterator[trio.MemoryReceiveChannel[TableAd]]:
    """Watch for tables on one interface (IPv4 address or name) or an open bridge.

    ``async with browse_tables("127.0.0.1") as ads: async for ad in ads: ...``
    """
    async with _bridge_for(where) as bridge, bridge.browse(SERVICE_TYPE) as events:
        send, receive = trio.open_memory_channel[TableAd](buffer)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_Follower(bridge, send, resolve_timeout).run, events)
            try:
                yield receive
            finally:
                nursery.cancel_scope.cancel()


@dataclass(frozen=True)
class _Resolved:
    """A resolver's answer about one name: its records, or None if none came in time."""

    name: str
    ticket: int
    info: AsyncServiceInfo | None


@dataclass(frozen=True)
class _Unanswered:
    """Tables whose check ran out: a goodbye named them and their owners did not answer."""

    names: list[str]


@dataclass(frozen=True)
class _Recheck:
    """Time to show a table turned away again."""


_Message = _Batch | _Resolved | _Unanswered | _Recheck


class _Follower:
    """The trio shell of a browse: one task owns the tables seen and reads an inbox fed by the
    browser's batches, by ``RESOLVERS`` resolver tasks, which take names from the queue, and by
    the checker, which asks about the tables in doubt and says which ran out."""

    def __init__(self, bridge: ZeroconfBridge, send: trio.MemorySendChannel[TableAd],
                 timeout: float) -> None:
        self._bridge = bridge
        self._send = send
        self._timeout = timeout
        self._queue = ResolveQueue()
        self._more = trio.Event()  # set (and replaced) when names start waiting
        self._doubts = Doubts()
        self._doubted = trio.Event()  # set (and replaced) when a check starts
        self._shown = Shown(most=MAX_SHOWN)
        self._told: set[str] = set()  # tables of another version, told once each
        self._crowded = False  # a table was displaced (told as a warning once, then as info)

    async def run(self, events: _BrowseEvents) -> None:
        post, inbox = trio.open_memory_channel[_Message](0)
        async with self._send, trio.open_nursery() as nursery:
            async with post:
                nursery.start_soon(self._listen, events, post.clone())
                nursery.start_soon(self._checker, post.clone())
                nursery.start_soon(self._rechecker, post.clone())
                for _ in range(RESOLVERS):
                    nursery.start_soon(self._resolver, post.clone())
            async for message in inbox:
                if isinstance(message, _Resolved):
                    await self._answered(message)
                elif isinstance(message, _Unanswered):
                    await self._unanswered(message)
                elif isinstance(message, _Recheck):
                    await self._show_one_turned_away()
                else:
                    await self._heard(message)

    @staticmethod
    async def _listen(events: _BrowseEvents, post: trio.MemorySendChannel[_Message]) -> None:
        async with post:
            while True:
                await post.send(await events.next_batch())

    async def _heard(self, batch: _Batch) -> None:
        """A goodbye for a table we show puts it in doubt, for any other name it settles the
        name; an ad whose records the cache holds (a table's own announcement, and its answer to
        our question, carry them all) is read at once; any other name waits for a resolver. A
        name heard anew clears its doubt, before any goodbye that followed in the batch."""
        for name in batch.heard:
            if self._doubts.clear(name):
                log.debug("goodbye for %r not believed: its owner answered", name)
        asked: dict[str, AsyncServiceInfo] = {}
        now = trio.current_time()
        for name, state_change in batch.changes.items():
            if state_change is ServiceStateChange.Removed:
                self._queue.settled(name)
                if name in self._shown:
                    self._doubt(name, now)
                elif not self._shown.is_turned_away(name):  # that one: the recheck decides
                    await self._settle(name, None)
            elif (info := _service_info(name)) is not None:
                asked[name] = info
        zc = self._bridge.zc

        async def from_cache() -> set[str]:
            return {name for name, info in asked.items() if info.load_from_cache(zc)}

        cached = await self._bridge.call(from_cache) if asked else set()
        now = trio.current_time()
        for name, info in asked.items():
            if name in cached:
                self._queue.settled(name)
                await self._read(name, info, now)
            else:
                self._queue.heard(name, now)
        if len(self._queue):
            more, self._more = self._more, trio.Event()
            more.set()

    def _doubt(self, name: str, now: float, *, records: bool = False) -> None:
        """Check a table we show with its owner (see Goodbyes): it stays shown meanwhile."""
        if self._doubts.doubt(name, now, records=records):
            doubted, self._doubted = self._doubted, trio.Event()
            doubted.set()

    async def _read(self, name: str, info: AsyncServiceInfo, now: float) -> None:
        """Show the ad in ``info``; records that make no valid ad for a table we show change
        nothing shown (anyone can send a TXT record for its name): its owner is asked, as for a
        goodbye, which refreshes its records, and the last good ad stays (``_unanswered``)."""
        ad = _ad_of(info, self._told)
        if ad is None and name in self._shown:
            self._doubt(name, now, records=True)
            return
        if ad is not None and self._doubts.about_records(name):  # a valid ad again
            self._doubts.clear(name)
        await self._settle(name, ad)

    async def _resolver(self, post: trio.MemorySendChannel[_Message]) -> None:
        async with post:
            while True:
                taken = self._queue.take()
                if taken is None:
                    await self._more.wait()
                    continue
                name, ticket = taken
                await post.send(_Resolved(name, ticket, await self._ask(name)))

    async def _ask(self, name: str) -> AsyncServiceInfo | None:
        """The records of ``name`` from the network, or None if they did not come in time."""
        info = AsyncServiceInfo(SERVICE_TYPE, name)  # zeroconf took the name when it was heard
        zc = self._bridge.zc
        with trio.move_on_after(self._timeout):
            # QM: ask for multicast answers. A QU question (zeroconf's default for a first
            # request) gets a unicast answer to port 5353, which on one shared address (loopback,
            # several peers per host) the kernel hands to just one of the SO_REUSEPORT sockets,
            # often not ours.
            if await self._bridge.call(lambda: info.async_request(
                    zc, int(self._timeout * 1000), question_type=DNSQuestionType.QM)):
                return info
        return None

    async def _checker(self, post: trio.MemorySendChannel[_Message]) -> None:
        """Ask about the tables in doubt while any is, and post those whose check ran out."""
        async with post:
            while True:
                if self._doubts.ask(trio.current_time()):
                    await self._question()
                wake = self._doubts.wake_at()
                with trio.move_on_at(math.inf if wake is None else wake):
                    await self._doubted.wait()
                gone = self._doubts.expired(trio.current_time())
                if gone:
                    await post.send(_Unanswered(gone))

    async def _question(self) -> None:
        """Multicast (QM) the question for every table's PTR record, with the PTR records of the
        tables we show and do not doubt as known answers (``KNOWN_ANSWERS`` of them at most,
        drawn at random: a flood of shown tables cannot make the question any larger): the owners
        of the tables in doubt answer, with all their records, and so may a few others."""
        undoubted = [name for name in self._shown.names() if name not in self._doubts]
        shown = set(secrets.SystemRandom().sample(undoubted, min(KNOWN_ANSWERS, len(undoubted))))
        zc = self._bridge.zc

        async def send() -> None:
            now = current_time_millis()
            out = DNSOutgoing(_FLAGS_QR_QUERY)
            out.add_question(DNSQuestion(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN))
            for record in zc.cache.async_all_by_details(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN):
                if isinstance(record, DNSPointer) and record.alias in shown:
                    out.add_answer_at_time(record, now)
            zc.async_send(out)

        await self._bridge.call(send)

    async def _answered(self, answer: _Resolved) -> None:
        found = answer.info is not None
        if not self._queue.finished(answer.name, answer.ticket, found, trio.current_time()):
            return
        if answer.info is None:
            log.info("ignoring service %r: not resolved within %.1f s (not asked again for a "
                     "while)", answer.name, self._timeout)
            await self._settle(answer.name, None)
        else:
            await self._read(answer.name, answer.info, trio.current_time())

    async def _unanswered(self, message: _Unanswered) -> None:
        """Tables whose check ran out: gone, but for one doubted for records that made no valid
        ad, whose last good ad stays shown (its owner's answer replaces a stranger's record in
        zeroconf's cache, which reads the stranger's, expired, until it is cleaned: the browser
        reads it again then). Such a table goes by a goodbye, as any other."""
        for name in message.names:
            if self._doubts.about_records(name):
                self._doubts.clear(name)
                log.info("the records of %r made no valid ad: its last good ad stays shown",
                         name)
                continue
            if name in self._shown:
                log.info("service %r said goodbye and its owner did not answer within %.1f s",
                         name, CHECK_TIMEOUT)
            await self._settle(name, None)

    async def _settle(self, name: str, ad: TableAd | None) -> None:
        """Tell what changed about ``name``: it is now ``ad``, or no table (None, which also
        ends its doubt). A full browser shows ``ad`` in the place of another table (``Shown``),
        told removed; a place freed shows the oldest table turned away again, if its records
        are still in the cache."""
        if ad is not None:
            previous = self._shown.get(name)
            displaced = self._shown.show(name, ad)
            if previous is None:
                await self._send.send(ad)
            elif replace(ad, change="added") != replace(previous, change="added"):
                await self._send.send(replace(ad, change="updated"))
            if displaced is not None:
                log.log(logging.INFO if self._crowded else logging.WARNING,
                        "more tables are announced than a browser shows (%d): showing %s at "
                        "%s in the place of %s at %s, whose address shows the most", MAX_SHOWN,
                        _table_of(name), ad.address, _table_of(displaced.name),
                        displaced.address)
                self._crowded = True
                self._doubts.clear(displaced.name)
                await self._send.send(replace(displaced, change="removed"))
        else:
            previous = self._shown.pop(name)
            self._doubts.clear(name)
            if previous is not None:
                await self._send.send(replace(previous, change="removed"))
                await self._show_one_turned_away()

    async def _show_one_turned_away(self) -> None:
        """Show the oldest table turned away that may come back (``Shown.may_return``), if the
        cache still holds its records (a table whose records are gone is forgotten); a few
        are tried at most."""
        zc = self._bridge.zc
        for name in self._shown.turned_away(4):
            info = _service_info(name)

            async def from_cache(info: AsyncServiceInfo | None = info) -> bool:
                return info is not None and info.load_from_cache(zc)

            ad = _ad_of(info, self._told) if info is not None and await self._bridge.call(
                from_cache) else None
            if ad is None:
                self._shown.pop(name)
            elif self._shown.may_return(ad):
                await self._settle(name, ad)
                return

    async def _rechecker(self, post: trio.MemorySendChannel[_Message]) -> None:
        """Every ``RECHECK_INTERVAL``, while a table is turned away, ask for it to be shown."""
        async with post:
            while True:
                await trio.sleep(RECHECK_INTERVAL)
                if self._shown.waiting:
                    await post.send(_Recheck())


def _service_info(name: str) -> AsyncServiceInfo | None:
    """An empty service info to resolve ``name`` into, or None (logged) if zeroconf will not
    query a name from the wire."""
    try:
        return AsyncServiceInfo(SERVICE_TYPE, name)
    except ZeroconfError as exc:
        log.info("ignoring service %r: %s", name, exc)
        return None


def _ad_of(info: AsyncServiceInfo, told: set[str]) -> TableAd | None:
    """The ad in a resolved service, or None (logged) if it is malformed. A table of another
    protocol version is told as a warning, once per table in ``told``: a person looking for it
    must learn why it never shows, in the versions' numbers."""
    try:
        return parse_service_info(info, "added")
    except OtherVersion as exc:
        table = _table_of(info.name)
        if table not in told:
            if len(told) < 256:
                told.add(table)
            log.warning("table %s speaks protocol version %d and this spycraft speaks %d: it "
                        "cannot be joined or watched from here (both need the same release)",
                        table, exc.version, PROTOCOL_VERSION)
        return None
    except DiscoveryError as exc:
        log.info("ignoring service %r: %s", info.name, exc)
        return None


def _table_of(name: str) -> str:
    """The table id in a service name (``spycraft-<id>[-<source>]._spycraft._tcp.local.``)."""
    found = re.match(rf"{NAME_PREFIX}([0-9a-f]{{32}})", name.lower())
    return found.group(1) if found else printable(name)[:80]
