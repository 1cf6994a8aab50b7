"""Discovery: strict TXT parsing, and tables seen across processes on loopback only."""

from __future__ import annotations

import itertools
import json
import logging
import os
import random
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st
from zeroconf import (
    DNSAddress,
    DNSIncoming,
    DNSOutgoing,
    DNSPointer,
    DNSRecord,
    DNSService,
    DNSText,
    ServiceStateChange,
)
from zeroconf.asyncio import AsyncServiceInfo
from zeroconf.const import (
    _CLASS_IN,
    _CLASS_UNIQUE,
    _FLAGS_AA,
    _FLAGS_QR_RESPONSE,
    _TYPE_A,
    _TYPE_PTR,
    _TYPE_SRV,
    _TYPE_TXT,
)

from spycraft import PROTOCOL_VERSION
from spycraft.p2p import discovery
from spycraft.p2p.discovery import (
    BACKOFF_FIRST,
    BACKOFF_MOST,
    CHECK_TIMEOUT,
    MAX_FAILED,
    MAX_WAITING,
    QUESTION_INTERVAL,
    SERVICE_TYPE,
    Announcer,
    DiscoveryError,
    Doubts,
    NetworkInterface,
    ResolveQueue,
    Shown,
    TableAd,
    TableTxt,
    ZeroconfBridge,
    _BrowseEvents,
    _txt_bytes,
    _txt_properties,
    browse_tables,
    choose_interface,
    decode_options,
    encode_options,
    find_interface,
    interface_address,
    network_interfaces,
    open_zeroconf,
    options_digest,
    parse_table_txt,
    service_name,
)
from tests.lab.netns import BareNamespace, unavailable

LOOPBACK = "127.0.0.1"
HELPER = Path(__file__).with_name("announce_table.py")
OPTIONS = {"plot": True, "targeting": False, "blind_spies": False}
GOOD = {
    "v": str(PROTOCOL_VERSION),
    "game": "resistance",
    "opt": options_digest("resistance", OPTIONS).hex(),
    "o": "-blind_spies,+plot,-targeting",
    "seats": "1/5",
    "table": "cd" * 16,
    "fp": "K7QF-2MZD-XH4A-9TNB-C3PW",
}


def txt(entries: dict[str, str] | list[bytes]) -> bytes:
    raw = (
        entries if isinstance(entries, list) else [f"{k}={v}".encode() for k, v in entries.items()]
    )
    return b"".join(bytes((len(e),)) + e for e in raw)


# --- interfaces ----------------------------------------------------------------------------------


def test_an_ipv4_address_names_its_interface() -> None:
    assert interface_address(LOOPBACK) == LOOPBACK


def test_an_interface_name_resolves_to_its_ipv4_address() -> None:
    assert interface_address("lo") == LOOPBACK


@pytest.mark.parametrize(
    "where", ["0.0.0.0", "224.0.0.251", "no-such-if0", "eth0:bad", "10.255.255.1", "203.0.113.9"]
)
def test_anything_but_one_interface_of_this_machine_is_refused_in_one_line(where: str) -> None:
    with pytest.raises(DiscoveryError) as refused:
        interface_address(where)
    assert where in str(refused.value) and "\n" not in str(refused.value)


def test_this_machine_lists_its_loopback_with_its_flags() -> None:
    found = {i.name: i for i in network_interfaces()}
    assert found["lo"].addresses[0] == LOOPBACK and found["lo"].loopback
    assert found["lo"].up is True  # read from /sys/class/net on Linux
    assert not found["lo"].can_carry_a_table


def lan(name: str, address: str, *, default_route: bool | None = False, up: bool | None = True,
        multicast: bool | None = True, point_to_point: bool | None = False,
        label: str | None = None) -> NetworkInterface:
    return NetworkInterface(name=name, label=label or name, addresses=(address,), prefixes=(24,),
                            loopback=False, up=up, multicast=multicast,
                            point_to_point=point_to_point, default_route=default_route)


LO = NetworkInterface(name="lo", label="lo", addresses=(LOOPBACK,), prefixes=(8,), loopback=True,
                      up=True, multicast=False, point_to_point=False, default_route=False)


def test_the_default_route_interface_is_chosen_among_several() -> None:
    choice = choose_interface([LO, lan("eth0", "10.0.0.2"),
                               lan("wlan0", "192.168.1.5", default_route=True)])
    assert choice.interface.name == "wlan0" and not choice.warning
    assert "default route" in choice.reason


def test_without_a_default_route_the_only_lan_interface_is_chosen_not_loopback() -> None:
    choice = choose_interface([LO, lan("eth0", "10.0.0.2"), lan("dummy0", "10.9.0.1",
                                                                multicast=False)])
    assert choice.interface.address == "10.0.0.2" and not choice.warning
    assert "no default route" in choice.reason


def test_several_lan_interfaces_and_no_default_route_ask_for_interface_naming_them() -> None:
    with pytest.raises(DiscoveryError) as refused:
        choose_interface([LO, lan("eth0", "10.0.0.2"), lan("wlan0", "192.168.1.5")])
    message = str(refused.value)
    assert "eth0 (10.0.0.2)" in message and "wlan0 (192.168.1.5)" in message
    assert "--interface" in message


def test_a_down_interface_is_not_a_candidate() -> None:
    choice = choose_interface([LO, lan("eth0", "10.0.0.2", up=False), lan("wlan0", "10.1.0.2")])
    assert choice.interface.name == "wlan0"


def test_a_vpn_holding_the_default_route_is_passed_over_for_the_lan() -> None:
    choice = choose_interface([LO, lan("wg0", "10.8.0.2", default_route=True,
                                       point_to_point=True), lan("en0", "192.168.1.5")])
    assert choice.interface.name == "en0"
    assert "wg0" in choice.reason


def test_flags_unknown_on_other_platforms_still_allow_the_only_interface() -> None:
    wifi = lan("{4D36E972-E325-11CE-BFC1-08002BE10318}", "169.254.10.20", up=None,
               multicast=None, point_to_point=None, label="Wi-Fi")
    choice = choose_interface([LO, wifi])
    assert choice.interface is wifi
    assert find_interface("Wi-Fi", [LO, wifi]) is wifi  # Windows' friendly name works


def test_a_second_address_of_an_interface_is_the_one_used_when_named() -> None:
    two = NetworkInterface(name="eth0", label="eth0", addresses=("10.0.0.2", "172.16.0.9"),
                           prefixes=(24, 16), loopback=False, up=True, multicast=True,
                           point_to_point=False, default_route=False)
    named = find_interface("172.16.0.9", [LO, two])
    assert (named.address, named.prefixes) == ("172.16.0.9", (16, 24))
    assert find_interface("eth0", [LO, two]).address == "10.0.0.2"


def test_loopback_only_falls_back_to_loopback_with_a_warning() -> None:
    choice = choose_interface([LO, lan("eth0", "10.0.0.2", up=False)])
    assert choice.interface is LO and choice.warning
    assert "only this machine" in choice.reason


# --- TXT records ---------------------------------------------------------------------------------


def test_a_well_formed_txt_record_parses() -> None:
    parsed = parse_table_txt(txt(GOOD))
    assert parsed.table_id == bytes.fromhex("cd" * 16)
    assert (parsed.seats_taken, parsed.seats_total) == (1, 5)
    assert parsed.options_digest == options_digest("resistance", OPTIONS)
    assert dict(parsed.options) == OPTIONS and parsed.opener is None


def test_an_ad_carries_its_options_and_the_opener_name() -> None:
    confusion = {"first": "red", "tokens": True}
    ad = TableTxt(bytes(16), "confusion", options_digest("confusion", confusion), 1, 2, "K7QF",
                  PROTOCOL_VERSION, options=tuple(sorted(confusion.items())), opener="Zoë")
    wire = _txt_bytes(_txt_properties(ad))
    assert b"o=first:red,+tokens" in wire
    assert parse_table_txt(wire) == ad


@pytest.mark.parametrize("options", [{"laps": 30}, {"laps": 0, "rounds": -7, "seed": 2**63 - 1},
                                     {"first": "red", "laps": -(2**63), "tokens": False}])
def test_an_ad_carries_integer_options_as_integers(options: dict[str, object]) -> None:
    # an integer option stays an integer end to end, so the ad's options hash to the digest the
    # genesis's options hash to (a game with an integer option can be announced at all)
    ad = TableTxt(bytes(16), "relay", options_digest("relay", options), 1, 3, "K7QF",
                  PROTOCOL_VERSION, options=tuple(sorted(options.items())))
    wire = _txt_bytes(_txt_properties(ad))
    assert parse_table_txt(wire) == ad
    assert all(type(v) is type(options[k]) for k, v in parse_table_txt(wire).options)


def test_an_integer_and_the_text_of_its_digits_are_two_options() -> None:
    assert encode_options({"laps": 30}) == "laps=30"
    assert encode_options({"laps": "30"}) == "laps:30"
    assert decode_options("laps=30") == (("laps", 30),)
    assert decode_options("laps:30") == (("laps", "30"),)
    assert options_digest("relay", {"laps": 30}) != options_digest("relay", {"laps": "30"})


@pytest.mark.parametrize("text", ["laps=030", "laps=-0", "laps=+3", "laps=", "laps=3.0",
                                  "laps=1e3", "laps= 3", "laps=0x1f", "laps=9223372036854775808",
                                  "laps=-9223372036854775809", "laps=99999999999999999999",
                                  "laps=3=4", "laps:3=4"])
def test_an_integer_option_is_read_only_in_canonical_decimal_within_64_bits(text: str) -> None:
    # one integer has one spelling, so two ads of one table cannot differ in how they write it
    with pytest.raises(DiscoveryError):
        decode_options(text)


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 1.5, None, b"30"])
def test_an_option_an_ad_cannot_carry_is_refused_when_announcing(value: object) -> None:
    with pytest.raises(DiscoveryError, match="cannot go in an ad"):
        encode_options({"laps": value})


def test_yes_and_no_stay_yes_and_no_not_one_and_zero() -> None:
    assert encode_options({"plot": True, "laps": 1}) == "laps=1,+plot"
    assert decode_options("laps=1,+plot") == (("laps", 1), ("plot", True))


@pytest.mark.parametrize("change", [
    {"o": "+blind_spies,+plot,-targeting"},  # options that are not the digest's
    {"o": "-blind_spies,+plot"},
    {"o": ""},
    {"opt": options_digest("resistance", {**OPTIONS, "plot": False}).hex()},
    {"game": "confusion"},  # the same options for another game hash differently
])
def test_an_ad_whose_options_do_not_match_its_digest_is_refused(change: dict[str, str]) -> None:
    with pytest.raises(DiscoveryError, match="do not match"):
        parse_table_txt(txt({**GOOD, **change}))


def test_unknown_txt_keys_are_ignored() -> None:
    assert parse_table_txt(txt({**GOOD, "future": "yes"})) == parse_table_txt(txt(GOOD))


@pytest.mark.parametrize(
    "change",
    [
        {"v": "99"},
        {"v": "01"},
        {"v": ""},
        {"game": "Resistance"},
        {"game": ""},
        {"opt": "AB" * 32},
        {"opt": "ab" * 31},
        {"seats": "6/5"},
        {"seats": "0/0"},
        {"seats": "1 / 5"},
        {"seats": "1/5/7"},
        {"table": "cd" * 15},
        {"table": "zz" * 16},
        {"fp": ""},
        {"fp": "a b"},
        {"fp": "x" * 65},
        {"o": "+plot,+plot"},
        {"o": "+plot,-blind_spies"},
        {"o": "plot"},
        {"o": "+Plot"},
        {"o": "first:"},
        {"o": "first:a b"},
        {"o": ",".join(f"+o{i:02}" for i in range(17))},
        {"n": ""},
        {"n": "a\x1b[2Jb"},
        {"n": " padded"},
        {"n": "x" * 65},
    ],
)
def test_a_malformed_txt_value_is_refused(change: dict[str, str]) -> None:
    with pytest.raises(DiscoveryError):
        parse_table_txt(txt({**GOOD, **change}))


@pytest.mark.parametrize("missing", sorted(GOOD))
def test_a_missing_txt_key_is_refused(missing: str) -> None:
    with pytest.raises(DiscoveryError):
        parse_table_txt(txt({k: v for k, v in GOOD.items() if k != missing}))


def test_a_repeated_or_valueless_txt_key_is_refused() -> None:
    entries = [f"{k}={v}".encode() for k, v in GOOD.items()]
    with pytest.raises(DiscoveryError):
        parse_table_txt(txt(entries + [b"seats=5/5"]))
    with pytest.raises(DiscoveryError):
        parse_table_txt(txt([e for e in entries if not e.startswith(b"fp=")] + [b"fp"]))
    with pytest.raises(DiscoveryError):
        parse_table_txt(txt(entries)[:-3] + b"\x7f")


def survives_a_round_trip_or_is_refused(data: bytes) -> None:
    """Anything that parses is exactly what an Announcer would send for it; the rest is a
    DiscoveryError (any other exception fails the test)."""
    try:
        parsed = parse_table_txt(data)
    except DiscoveryError:
        return
    assert parse_table_txt(_txt_bytes(_txt_properties(parsed))) == parsed


@given(st.binary(max_size=600))
def test_random_txt_bytes_raise_only_discovery_error(data: bytes) -> None:
    survives_a_round_trip_or_is_refused(data)


@given(st.data())
def test_mutated_txt_records_raise_only_discovery_error(data: st.DataObject) -> None:
    good = bytearray(txt(GOOD))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(good) - 1))
        good[i] = data.draw(st.integers(0, 255))
    survives_a_round_trip_or_is_refused(bytes(good))


def test_an_announcer_refuses_an_ad_it_would_not_accept() -> None:
    with pytest.raises(DiscoveryError):
        Announcer(
            LOOPBACK,
            port=4000,
            game="resistance",
            options={"rounds": [3]},  # a list: no ad carries it (an integer now does)
            table_id=bytes(16),
            fingerprint="K7QF",
            seats_total=5,
        )


# --- on loopback ---------------------------------------------------------------------------------


async def next_ad_of(ads: trio.MemoryReceiveChannel[TableAd], table_id: bytes) -> TableAd:
    """The next ad about one table (a leftover from another run on loopback is skipped)."""
    async for ad in ads:
        if ad.table_id == table_id:
            return ad
    raise AssertionError("browser stopped")


@pytest.mark.network
def test_a_table_from_another_process_is_added_updated_and_removed() -> None:
    table_id = os.urandom(16)  # two test runs at once must not see each other's tables

    async def main() -> None:
        async with browse_tables(LOOPBACK) as ads:
            process = await trio.lowlevel.open_process(
                [sys.executable, str(HELPER), LOOPBACK, "4567", table_id.hex()],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            assert process.stdin is not None
            try:
                with trio.fail_after(10):
                    added = await next_ad_of(ads, table_id)
                assert added.change == "added"
                assert (added.address, added.port) == (LOOPBACK, 4567)
                assert (added.game, added.seats_taken, added.seats_total) == ("resistance", 1, 5)
                assert added.fingerprint == "K7QF-2MZD-XH4A-9TNB-C3PW"
                assert added.name == service_name(table_id)

                await process.stdin.send_all(b"seats 3\n")
                with trio.fail_after(5):
                    updated = await next_ad_of(ads, table_id)
                assert (updated.change, updated.seats_taken) == ("updated", 3)

                await process.stdin.send_all(b"quit\n")
                with trio.fail_after(5):
                    removed = await next_ad_of(ads, table_id)
                assert removed.change == "removed"
                with trio.fail_after(5):
                    assert await process.wait() == 0
            finally:
                if process.returncode is None:
                    process.kill()
                    with trio.CancelScope(shield=True):
                        await process.wait()

    trio.run(main)


def mdns_listener() -> trio.socket.SocketType:
    """A socket that hears every mDNS packet multicast on loopback, as any browser there does."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("", 5353))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                    socket.inet_aton("224.0.0.251") + socket.inet_aton(LOOPBACK))
    return trio.socket.from_stdlib_socket(sock)


@pytest.mark.network
@pytest.mark.parametrize("updated", [False, True])
def test_a_table_withdrawn_while_it_is_first_announced_stays_withdrawn(updated: bool) -> None:
    """An Announcer returns once its name is registered, while zeroconf still sends its first
    announcements (three, 0.225 s apart): a table that fills at once (bots waiting for it) is
    withdrawn during them. The rest of them must not follow the goodbyes (a browser would take
    a late one for the owner's answer to its check, and show a table that is gone), nor follow
    an update (and show an older count after it). Checked on the wire: every packet about the
    table, in the order sent."""
    table_id = os.urandom(16)

    async def main() -> None:
        heard: list[tuple[int, bytes]] = []  # (time to live, TXT) of each PTR/TXT answer

        async def listen(wire: trio.socket.SocketType, name: str) -> None:
            while True:
                packet = DNSIncoming(await wire.recv(9000))
                for record in packet.answers():
                    if isinstance(record, DNSText) and record.name == name:
                        heard.append((record.ttl, record.text))
                    elif isinstance(record, DNSPointer) and record.alias == name:
                        heard.append((record.ttl, b"PTR"))

        with mdns_listener() as wire:
            announcer = Announcer(LOOPBACK, port=4573, game="spies_and_lies", options={},
                                  table_id=table_id, fingerprint="K7QF-2MZD-XH4A-9TNB-C3PW",
                                  seats_total=3, cooperating_responders=True)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(listen, wire, announcer.name)
                async with announcer:
                    if updated:
                        await announcer.update(seats_taken=2)
                await trio.sleep(1.5)  # past the first announcements' last
                nursery.cancel_scope.cancel()
        assert heard and heard[0][0] > 0, heard
        goodbye = next(i for i, (ttl, _) in enumerate(heard) if ttl == 0)
        assert all(ttl == 0 for ttl, _ in heard[goodbye:]), f"announced after its goodbye: {heard}"
        if updated:
            texts = [text for ttl, text in heard[:goodbye] if text != b"PTR"]
            newest = texts.index(texts[-1])
            assert all(text == texts[-1] for text in texts[newest:]) and len(set(texts)) == 2, \
                f"an older ad after the update's: {heard}"

    trio.run(main)


@pytest.mark.network
def test_a_probed_table_is_found_a_malformed_one_ignored_and_a_duplicate_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    table_id, forged_id = os.urandom(16), os.urandom(16)

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, browse_tables(stranger) as ads:
            forged = AsyncServiceInfo(
                SERVICE_TYPE,
                service_name(forged_id),
                port=4999,
                properties={**GOOD, "table": forged_id.hex(), "seats": "9/2"},
                addresses=[bytes([127, 0, 0, 1])],
            )

            async def register_forged() -> None:
                await (
                    await stranger.zc.async_register_service(forged, cooperating_responders=True)
                )

            await stranger.call(register_forged)
            announcer = Announcer(
                LOOPBACK,
                port=4568,
                game="spies_and_lies",
                options={},
                table_id=table_id,
                fingerprint="K7QF-2MZD-XH4A-9TNB-C3PW",
                seats_total=2,
            )
            async with announcer:
                with trio.fail_after(10):
                    ad = await next_ad_of(ads, table_id)
                assert (ad.change, ad.game, ad.seats_total) == ("added", "spies_and_lies", 2)
                # The browser's cache now holds the table, so the duplicate's probe stops at
                # once. (A probe answer between processes on loopback is unicast to port 5353,
                # which SO_REUSEPORT may hand to another process: not a reliable test.)
                with pytest.raises(DiscoveryError, match="already announces"):
                    async with Announcer(
                        stranger,
                        port=4569,
                        game="spies_and_lies",
                        options={},
                        table_id=table_id,
                        fingerprint="ZZZZ",
                        seats_total=2,
                    ):
                        pass
            with trio.fail_after(5):
                assert (await next_ad_of(ads, table_id)).change == "removed"

    with caplog.at_level(logging.INFO, logger="spycraft.p2p.discovery"):
        trio.run(main)
    assert any("impossible seats 9/2" in r.getMessage() for r in caplog.records)


# --- interfaces in a network namespace (real kernel interfaces, no default route) ---------------

CHOOSE = """
import json
from spycraft.p2p.discovery import DiscoveryError, default_interface
try:
    choice = default_interface()
    print(json.dumps({"name": choice.interface.name, "address": choice.interface.address,
                      "reason": choice.reason, "warning": choice.warning}))
except DiscoveryError as exc:
    print(json.dumps({"error": str(exc)}))
"""


@pytest.fixture
def bare() -> Iterator[BareNamespace]:
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    with BareNamespace("if") as namespace:
        yield namespace


def choice_in(namespace: BareNamespace) -> dict[str, object]:
    done = namespace.run([sys.executable, "-c", CHOOSE])
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.netns
def test_the_default_choice_across_loopback_two_interfaces_a_down_one_and_a_default_route(
    bare: BareNamespace,
) -> None:
    only_loopback = choice_in(bare)
    assert only_loopback["address"] == LOOPBACK and only_loopback["warning"] is True
    for pair, address in (("a", "10.61.0.1/24"), ("b", "10.62.0.1/24")):
        bare.ip("link", "add", f"{pair}0", "type", "veth", "peer", "name", f"{pair}1")
        bare.ip("addr", "add", address, "dev", f"{pair}0")
        bare.ip("link", "set", f"{pair}0", "up")
        bare.ip("link", "set", f"{pair}1", "up")
    bare.ip("link", "add", "c0", "type", "veth", "peer", "name", "c1")  # up, but no multicast
    bare.ip("addr", "add", "10.63.0.1/24", "dev", "c0")
    bare.ip("link", "set", "c0", "multicast", "off")
    bare.ip("link", "set", "c0", "up")
    bare.ip("link", "set", "c1", "up")
    two = choice_in(bare)
    assert "10.61.0.1" in str(two["error"]) and "10.62.0.1" in str(two["error"])
    assert "10.63.0.1" not in str(two["error"]) and "--interface" in str(two["error"])
    bare.ip("link", "set", "b0", "down")
    one_up = choice_in(bare)
    assert (one_up["name"], one_up["warning"]) == ("a0", False)
    bare.ip("link", "set", "b0", "up")
    bare.ip("route", "add", "default", "via", "10.62.0.254", "dev", "b0", "onlink")
    routed = choice_in(bare)
    assert routed["name"] == "b0" and "default route" in str(routed["reason"])


# --- a stranger's names that never resolve ------------------------------------------------------


def unresolvable_names(count: int) -> list[str]:
    """Service names that look like tables; nobody answers for their SRV, TXT or A records."""
    return [service_name(os.urandom(16)) for _ in range(count)]


async def point_at(stranger: ZeroconfBridge, names: list[str]) -> None:
    """Multicast, as a stranger's real zeroconf, one PTR record per name and nothing else: every
    browser on the LAN hears of the names and must ask for records that never come."""
    zc = stranger.zc

    async def send() -> None:
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for name in names:
            out.add_answer_at_time(DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 4500, name), 0)
        zc.async_send(out)

    await stranger.call(send)


@pytest.mark.network
def test_fifty_names_that_never_resolve_do_not_hide_a_real_table_announced_after_them() -> None:
    """A stranger points fifty service names at nothing, then a real table is announced. The
    names that do not resolve wait for their answers beside it, never in front of it: the table
    is seen within a few seconds (one name after another, three seconds each, it took 150)."""
    table_id = os.urandom(16)

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, browse_tables(LOOPBACK) as ads:
            await point_at(stranger, unresolvable_names(50))
            await trio.sleep(0.5)  # the browser has heard them all and is asking about them
            async with Announcer(LOOPBACK, port=4570, game="spies_and_lies", options={},
                                 table_id=table_id, fingerprint="K7QF-2MZD-XH4A-9TNB-C3PW",
                                 seats_total=2, cooperating_responders=True):
                with trio.fail_after(4):
                    ad = await next_ad_of(ads, table_id)
                assert (ad.change, ad.port) == ("added", 4570)

    trio.run(main)


async def withdraw(stranger: ZeroconfBridge, name: str) -> None:
    """The stranger's goodbye for one of its names (its PTR record with a time to live of 0)."""
    zc = stranger.zc

    async def send() -> None:
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        out.add_answer_at_time(DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 0, name), 0)
        zc.async_send(out)

    await stranger.call(send)


@pytest.mark.network
def test_a_name_that_never_resolves_re_announced_again_and_again_is_asked_about_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A stranger says goodbye to its name and announces it again, six times: each time the
    browser hears of a new name, and each time it would ask about it for the whole resolve
    timeout. A name that did not resolve is backed off, a goodbye forgives nothing, so it is
    asked about once."""
    [name] = unresolvable_names(1)

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, \
                browse_tables(LOOPBACK, resolve_timeout=0.5):
            for _ in range(6):
                await point_at(stranger, [name])
                await trio.sleep(0.8)  # longer than a resolve: the browser is done with it
                await withdraw(stranger, name)
                await trio.sleep(0.3)

    with caplog.at_level(logging.INFO, logger="spycraft.p2p.discovery"):
        trio.run(main)
    unresolved = [r for r in caplog.records
                  if r.getMessage().startswith(f"ignoring service {name!r}: not resolved")]
    assert len(unresolved) == 1, [r.getMessage() for r in caplog.records]


# --- a stranger's goodbyes for a live table ----------------------------------------------------


async def records_heard(stranger: ZeroconfBridge, name: str) -> list[DNSRecord]:
    """A table's records as the stranger's zeroconf heard them from its ad: PTR, SRV, TXT, A."""
    zc = stranger.zc
    server = name.removesuffix(SERVICE_TYPE) + "local."

    async def read() -> list[DNSRecord]:
        pointers = [r for r in zc.cache.async_all_by_details(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN)
                    if isinstance(r, DNSPointer) and r.alias == name]
        own = [r for n in (name, server) for r in zc.cache.async_entries_with_name(n)
               if r.type in (_TYPE_SRV, _TYPE_TXT, _TYPE_A)]
        return pointers + own

    return await stranger.call(read)


async def all_records_heard(stranger: ZeroconfBridge, name: str) -> list[DNSRecord]:
    """``records_heard`` once the stranger has heard every kind of them."""
    while True:
        records = await records_heard(stranger, name)
        if {r.type for r in records} == {_TYPE_PTR, _TYPE_SRV, _TYPE_TXT, _TYPE_A}:
            return records
        await trio.sleep(0.05)


def goodbye_for(record: DNSRecord) -> DNSRecord:
    """The same record with a time to live of 0: what its owner sends when it withdraws."""
    class_ = record.class_ | (_CLASS_UNIQUE if record.unique else 0)
    if isinstance(record, DNSPointer):
        return DNSPointer(record.name, record.type, class_, 0, record.alias)
    if isinstance(record, DNSService):
        return DNSService(record.name, record.type, class_, 0, record.priority, record.weight,
                          record.port, record.server)
    if isinstance(record, DNSText):
        return DNSText(record.name, record.type, class_, 0, record.text)
    assert isinstance(record, DNSAddress)
    return DNSAddress(record.name, record.type, class_, 0, record.address)


async def say_goodbye_again_and_again(stranger: ZeroconfBridge, records: list[DNSRecord],
                                      every: float) -> None:
    """The stranger multicasts a goodbye for each of ``records`` every ``every`` seconds."""
    goodbyes = [goodbye_for(record) for record in records]

    async def send() -> None:
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for goodbye in goodbyes:
            out.add_answer_at_time(goodbye, 0)
        stranger.zc.async_send(out)

    while True:
        await stranger.call(send)
        await trio.sleep(every)


@pytest.mark.network
@pytest.mark.parametrize("forged", [{_TYPE_PTR}, {_TYPE_PTR, _TYPE_SRV, _TYPE_TXT, _TYPE_A}],
                         ids=["its PTR record", "all its records"])
def test_a_strangers_goodbyes_every_quarter_second_neither_hide_a_live_table_nor_keep_a_gone_one(
    forged: set[int],
) -> None:
    """A stranger copies a live table's records from its ad and multicasts them back with a
    time to live of 0 every 0.25 s. Its owner answers the browser's question each time, so the
    table is shown throughout 10 s of it (each goodbye hid it until the browser happened to hear
    the table again: for most of the 10 s). When the owner really withdraws, the goodbyes still
    coming, nobody answers, and the table is told removed within the check's time."""
    table_id = os.urandom(16)

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, browse_tables(LOOPBACK) as ads, \
                trio.open_nursery() as nursery:
            async with Announcer(LOOPBACK, port=4571, game="spies_and_lies", options={},
                                 table_id=table_id, fingerprint="K7QF-2MZD-XH4A-9TNB-C3PW",
                                 seats_total=2, cooperating_responders=True) as announcer:
                with trio.fail_after(4):
                    assert (await next_ad_of(ads, table_id)).change == "added"
                    records = await all_records_heard(stranger, announcer.name)
                records = [r for r in records if r.type in forged]
                nursery.start_soon(say_goodbye_again_and_again, stranger, records, 0.25)
                started = trio.current_time()
                with trio.move_on_after(10):
                    ad = await next_ad_of(ads, table_id)
                    raise AssertionError(f"{ad.change} after {trio.current_time() - started:.2f}"
                                         f" s of goodbyes, its owner still there")
            with trio.fail_after(CHECK_TIMEOUT + 1.5):
                assert (await next_ad_of(ads, table_id)).change == "removed"
            nursery.cancel_scope.cancel()

    trio.run(main)


# --- goodbyes for a table shown, and the question that checks them (sans-IO) --------------------


def test_a_goodbye_for_a_table_shown_is_a_doubt_that_removes_it_only_when_unanswered() -> None:
    doubts = Doubts()
    assert doubts.doubt("x", 0.0) and "x" in doubts
    assert doubts.expired(CHECK_TIMEOUT - 0.01) == []
    assert doubts.expired(CHECK_TIMEOUT) == ["x"] and "x" not in doubts


def test_more_goodbyes_for_a_table_in_doubt_do_not_put_off_its_removal() -> None:
    doubts = Doubts()
    doubts.doubt("x", 0.0)
    for quarter in range(1, 10):
        assert not doubts.doubt("x", quarter / 4)
    assert doubts.expired(CHECK_TIMEOUT) == ["x"]


def test_an_answer_ends_a_doubt_and_the_next_goodbye_starts_a_new_one() -> None:
    doubts = Doubts()
    doubts.doubt("x", 0.0)
    assert doubts.clear("x") and not doubts.clear("x")
    assert doubts.expired(100.0) == []
    assert doubts.doubt("x", 1.0)
    assert doubts.expired(1.0 + CHECK_TIMEOUT) == ["x"]


def test_nothing_in_doubt_means_nothing_asked_and_nothing_due() -> None:
    doubts = Doubts()
    assert not doubts.ask(0.0) and doubts.wake_at() is None
    doubts.doubt("x", 5.0)
    assert doubts.ask(5.0) and doubts.wake_at() == 5.0 + QUESTION_INTERVAL
    doubts.clear("x")
    assert not doubts.ask(7.0) and doubts.wake_at() is None


def test_one_question_a_second_serves_every_doubt_and_each_is_asked_twice_before_its_end() -> None:
    """Goodbyes for twenty tables, one every 0.05 s, each answered at its second question:
    never more than one question a second, and no doubt runs out before its second question."""
    doubts = Doubts()
    asked: list[float] = []
    questions: dict[str, int] = {}  # a table in doubt -> the questions it has met
    for tick in range(20 * 60):  # 60 s in steps of 1/20 s
        now = tick / 20
        name = f"t{tick % 20}"
        if doubts.doubt(name, now):
            questions[name] = 0
        if doubts.ask(now):
            asked.append(now)
            for name in list(questions):
                questions[name] += 1
                if questions[name] == 2:
                    assert doubts.clear(name)
                    del questions[name]
        assert doubts.expired(now) == []
    assert all(b - a >= QUESTION_INTERVAL for a, b in itertools.pairwise(asked))
    assert len(asked) >= 55


def test_a_name_heard_anew_stays_heard_in_its_batch_though_a_goodbye_follows() -> None:
    """An owner's answer and a stranger's goodbye sent right after it arrive in one batch: the
    batch says the name was heard, so the answer still clears the table's doubt."""

    async def main() -> None:
        events = _BrowseEvents()
        for change in (ServiceStateChange.Removed, ServiceStateChange.Added,
                       ServiceStateChange.Removed):
            events.note("x", change)
        batch = await events.next_batch()
        assert batch.changes == {"x": ServiceStateChange.Removed} and batch.heard == {"x"}

    trio.run(main)


# --- which names are asked about, and when (sans-IO) --------------------------------------------


def names(count: int, tag: str = "n") -> list[str]:
    return [f"spycraft-{tag}{i}._spycraft._tcp.local." for i in range(count)]


def test_a_name_that_did_not_resolve_is_not_asked_about_again_until_its_back_off_ends() -> None:
    queue = ResolveQueue()
    pauses = []
    now = 0.0
    for _ in range(7):
        queue.heard("x", now)
        taken = queue.take()
        assert taken is not None and taken[0] == "x"
        assert queue.finished("x", taken[1], resolved=False, now=now)
        pause = 0.0
        while queue.backed_off("x", now + pause):
            pause += 1.0
        queue.heard("x", now + pause - 1.0)  # heard while backed off: ignored
        assert queue.take() is None
        pauses.append(pause)
        now += pause
    assert pauses == [BACKOFF_FIRST, 60.0, 120.0, 240.0, 480.0, BACKOFF_MOST, BACKOFF_MOST]


def test_a_name_that_resolves_is_forgiven_its_failures() -> None:
    queue = ResolveQueue()
    queue.heard("x", 0.0)
    name, ticket = queue.take() or ("", 0)
    queue.finished(name, ticket, resolved=False, now=0.0)
    queue.heard("x", BACKOFF_FIRST)
    name, ticket = queue.take() or ("", 0)
    assert queue.finished(name, ticket, resolved=True, now=BACKOFF_FIRST)
    assert not queue.backed_off("x", BACKOFF_FIRST)
    queue.heard("x", BACKOFF_FIRST)
    name, ticket = queue.take() or ("", 0)
    queue.finished(name, ticket, resolved=False, now=BACKOFF_FIRST)
    assert not queue.backed_off("x", 2 * BACKOFF_FIRST)  # a first failure again, not a second


def test_a_goodbye_while_a_name_is_resolved_makes_the_resolve_count_for_nothing() -> None:
    queue = ResolveQueue()
    queue.heard("x", 0.0)
    _, first = queue.take() or ("", 0)
    queue.settled("x")  # a goodbye, or its records in the cache
    queue.heard("x", 0.0)
    _, second = queue.take() or ("", 0)
    assert not queue.finished("x", first, resolved=True, now=0.0)
    assert queue.finished("x", second, resolved=True, now=0.0)
    assert not queue.finished("x", second, resolved=True, now=0.0)


def test_a_name_is_waiting_or_being_resolved_once_however_often_it_is_heard() -> None:
    queue = ResolveQueue()
    for _ in range(3):
        queue.heard("x", 0.0)
    assert len(queue) == 1
    assert queue.take() is not None
    queue.heard("x", 0.0)
    assert len(queue) == 0 and queue.take() is None


def test_thousands_of_names_take_bounded_memory_and_newcomers_still_get_in() -> None:
    queue = ResolveQueue(choose=random.Random(7).randrange)
    early, late = names(MAX_WAITING, "early"), names(10 * MAX_WAITING, "late")
    for name in early + late:
        queue.heard(name, 0.0)
    assert len(queue) == MAX_WAITING
    waiting = set()
    while (taken := queue.take()) is not None:
        waiting.add(taken[0])
        queue.finished(*taken, resolved=False, now=0.0)
    assert len(waiting) == MAX_WAITING  # a sample of all: one in eleven came early
    assert MAX_WAITING / 11 / 2 < len(waiting & set(early)) < MAX_WAITING / 11 * 2
    more = names(2 * MAX_FAILED, "more")
    for name in more:
        queue.heard(name, 0.0)
        taken = queue.take()
        assert taken is not None
        queue.finished(*taken, resolved=False, now=0.0)
    remembered = [name for name in early + late + more if queue.backed_off(name, 1.0)]
    assert remembered == more[-MAX_FAILED:]  # the ones remembered longest are forgotten first


def test_the_next_name_asked_about_is_drawn_at_random_not_the_first_or_last_heard() -> None:
    draws = random.Random(11)
    first_taken: Counter[str] = Counter()
    for _ in range(2000):
        queue = ResolveQueue(choose=draws.randrange)
        for name in names(10):
            queue.heard(name, 0.0)
        taken = queue.take()
        assert taken is not None
        first_taken[taken[0]] += 1
    assert set(first_taken) == set(names(10))
    assert all(140 <= count <= 260 for count in first_taken.values()), first_taken


# --- a flood of well-formed tables ----------------------------------------------------------------


def an_ad(name: str, address: str) -> TableAd:
    return TableAd(change="added", name=name, table_id=bytes(16), game="resistance",
                   options_digest=bytes(32), seats_taken=1, seats_total=5, fingerprint="K7QF",
                   version=PROTOCOL_VERSION, address=address, port=4000)


def test_a_full_browser_shows_a_newcomer_in_the_place_of_one_of_the_address_showing_most(
) -> None:
    shown = Shown(most=6)
    for n in range(5):
        assert shown.show(f"flood{n}", an_ad(f"flood{n}", "10.9.9.9")) is None
    assert shown.show("honest", an_ad("honest", "192.168.1.20")) is None
    for name, address in (("friend", "192.168.1.30"), ("flood5", "10.9.9.9")):
        displaced = shown.show(name, an_ad(name, address))
        assert displaced is not None and displaced.address == "10.9.9.9"
        assert displaced.name not in shown and len(shown) == 6
    assert "honest" in shown and "friend" in shown  # the flood gave way to both


def test_a_flood_claiming_an_honest_tables_own_address_still_gives_way_to_it() -> None:
    draws = random.Random(5)
    shown = Shown(most=8, choose=draws.randrange)
    for n in range(8):
        shown.show(f"flood{n}", an_ad(f"flood{n}", "192.168.1.20"))
    displaced = shown.show("honest", an_ad("honest", "192.168.1.20"))
    assert displaced is not None and displaced.name.startswith("flood") and "honest" in shown


def test_ties_between_addresses_are_drawn_at_random_not_by_order() -> None:
    losers = Counter()
    for seed in range(200):
        shown = Shown(most=4, choose=random.Random(seed).randrange)
        for n in range(4):
            shown.show(f"t{n}", an_ad(f"t{n}", f"10.0.0.{n}"))
        displaced = shown.show("new", an_ad("new", "10.0.0.9"))
        assert displaced is not None
        losers[displaced.address] += 1
    assert set(losers) == {f"10.0.0.{n}" for n in range(4)} and min(losers.values()) > 25


def test_an_update_never_displaces_and_keeps_its_age_and_a_gone_table_is_forgotten() -> None:
    shown = Shown(most=3, choose=random.Random(1).randrange)
    for n in range(3):
        shown.show(f"t{n}", an_ad(f"t{n}", "10.0.0.1"))
    assert shown.show("t0", an_ad("t0", "10.0.0.7")) is None  # moved: nothing displaced
    displaced = shown.show("t3", an_ad("t3", "10.0.0.2"))
    assert displaced is not None and displaced.name == "t2"  # the newest of the fullest
    assert shown.turned_away(4) == ["t2"] and shown.waiting == 1
    assert shown.pop("t2") is None and shown.turned_away(4) == []  # gone: forgotten
    assert len(shown) == 3


def test_a_stranger_who_makes_an_honest_tables_address_the_fullest_displaces_its_own_tables(
) -> None:
    """Red team 11's aimed attack: a full browser of one table per address, one more table at
    the honest table's address (now the fullest), then a stream of tables there and elsewhere,
    with a recheck every ten. Tables at the honest table's address never displace it; one from
    elsewhere does in a tie at times (one in 512), and the next recheck brings it back."""
    shown = Shown(most=512, choose=random.Random(3).randrange)
    shown.show("honest", an_ad("honest", "192.168.1.20"))
    for n in range(511):
        shown.show(f"fake{n}", an_ad(f"fake{n}", f"10.{n // 250}.{n % 250}.1"))
    hidden = 0
    for n in range(4000):
        address = "192.168.1.20" if n % 2 else f"10.9.{n // 250}.{n % 250}"
        shown.show(f"more{n}", an_ad(f"more{n}", address))
        if "honest" not in shown:
            assert n % 2 == 0, "a table at its own address displaced it"
            hidden += 1
        if n % 10 == 9:
            for name in shown.turned_away(4):
                ad = an_ad(name, "192.168.1.20" if name == "honest" else "10.9.255.1")
                if shown.may_return(ad):
                    shown.show(name, ad)
                    break
    assert hidden < 4000 * 0.02 and len(shown) == 512 and "honest" in shown


def test_a_table_displaced_by_churn_is_the_oldest_turned_away_and_comes_back_first() -> None:
    shown = Shown(most=8, choose=random.Random(4).randrange)
    for n in range(8):
        shown.show(f"t{n}", an_ad(f"t{n}", f"10.0.0.{n}"))
    churn = 0
    while "t0" in shown:
        shown.show(f"new{churn}", an_ad(f"new{churn}", f"10.1.{churn // 250}.{churn % 250}"))
        churn += 1
    assert shown.turned_away(1) == ["t0"]  # the oldest of those turned away
    assert shown.may_return(an_ad("t0", "10.0.0.0"))
    assert shown.show("t0", an_ad("t0", "10.0.0.0")) is not None and "t0" in shown


def test_old_tables_of_a_flood_never_come_back_in_place_of_a_table_of_their_address() -> None:
    """Fakes claim the honest table's address before it is announced: it is shown in the place
    of the newest of them, and the older ones turned away never return over it."""
    shown = Shown(most=5, choose=random.Random(6).randrange)
    for n in range(60):
        shown.show(f"fake{n}", an_ad(f"fake{n}", "192.168.1.20"))
    shown.show("honest", an_ad("honest", "192.168.1.20"))
    assert "honest" in shown
    for name in shown.turned_away(4):
        assert not shown.may_return(an_ad(name, "192.168.1.20"))


def test_turned_away_names_are_bounded_keeping_the_oldest() -> None:
    shown = Shown(most=4, choose=random.Random(2).randrange)
    for n in range(1000):
        shown.show(f"t{n}", an_ad(f"t{n}", f"10.0.{n % 7}.1"))
    assert shown.waiting == 4
    away = shown.turned_away(10)
    assert len(away) == 4 and not set(away) & set(shown.names())
    assert away == sorted(away, key=lambda name: int(name[1:]))  # oldest first


def test_a_table_alone_at_its_address_outlasts_a_floods_older_tables_among_those_turned_away(
) -> None:
    """Red team 13: a stranger floods before a table opens, then keeps sending new tables from
    new addresses. When the table is displaced at last, the tables waiting are all older than it
    (kept by age, it was forgotten at once, never to come back): it is kept, being alone at its
    address, and it is the one a recheck from its address finds."""
    shown = Shown(most=32, choose=random.Random(8).randrange)
    for n in range(64):
        shown.show(f"early{n}", an_ad(f"early{n}", "10.66.0.1"))
    shown.show("honest", an_ad("honest", "192.168.1.20"))
    n = 0
    while "honest" in shown:
        shown.show(f"new{n}", an_ad(f"new{n}", f"10.9.{n // 250}.{n % 250}"))
        n += 1
    for m in range(2000):
        shown.show(f"more{m}", an_ad(f"more{m}", f"10.8.{m // 250}.{m % 250}"))
        assert shown.is_turned_away("honest"), m
    assert shown.waiting == 32


def test_a_table_turned_away_and_updated_keeps_its_age_when_the_waiting_are_full() -> None:
    shown = Shown(most=2, choose=random.Random(9).randrange)
    for name in ("a", "b", "c", "d"):
        shown.show(name, an_ad(name, "10.0.0.1"))  # c and d displace, a and b wait
    assert shown.turned_away(4) == ["a", "b"] or shown.turned_away(4) == ["a", "c"] or \
        shown.waiting == 2
    waiting = shown.turned_away(4)
    oldest = waiting[0]
    shown.show(oldest, an_ad(oldest, "10.0.0.2"))  # its update, heard while turned away
    assert oldest in shown and not shown.is_turned_away(oldest)
    newer = shown.show("e", an_ad("e", "10.0.0.2"))
    assert newer is not None and newer.name != oldest  # still the oldest there: not displaced


def fake_table_records(address: str, count: int) -> list[DNSRecord]:
    """Every record of ``count`` well-formed tables that claim ``address``, as a stranger would
    multicast them: each resolves from the cache and parses as a valid ad."""
    records: list[DNSRecord] = []
    for n in range(count):
        table_id = os.urandom(16)
        name = service_name(table_id)
        server = f"fake-{table_id.hex()}.local."
        properties = {**GOOD, "table": table_id.hex()}
        records += [
            DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 4500, name),
            DNSService(name, _TYPE_SRV, _CLASS_IN | _CLASS_UNIQUE, 120, 0, 0, 4000 + n, server),
            DNSText(name, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500, txt(properties)),
            DNSAddress(server, _TYPE_A, _CLASS_IN | _CLASS_UNIQUE, 120,
                       socket.inet_aton(address)),
        ]
    return records


async def multicast(stranger: ZeroconfBridge, records: list[DNSRecord]) -> None:
    """The stranger multicasts ``records`` as answers, four tables' worth a packet."""
    zc = stranger.zc

    async def send() -> None:
        for start in range(0, len(records), 16):
            out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
            for record in records[start:start + 16]:
                out.add_answer_at_time(record, 0)
            zc.async_send(out)

    await stranger.call(send)


class Question(DNSOutgoing):
    """The browser's own question about goodbyes (zeroconf's browser keeps asking its own,
    with every name its cache holds as a known answer, on its own schedule)."""

    sent: ClassVar[list[Question]] = []

    def __init__(self, flags: int) -> None:
        super().__init__(flags)
        Question.sent.append(self)


async def follow(ads: trio.MemoryReceiveChannel[TableAd], shown: dict[str, TableAd],
                 quiet: float = 0.5) -> None:
    """Keep ``shown`` (service name -> ad) as the browser tells it, until it has told nothing
    for ``quiet`` seconds."""
    while True:
        with trio.move_on_after(quiet) as idle:
            ad = await ads.receive()
        if idle.cancelled_caught:
            return
        if ad.change == "removed":
            shown.pop(ad.name, None)
        else:
            shown[ad.name] = ad


@pytest.mark.network
@pytest.mark.parametrize("claimed", ["10.9.9.9", LOOPBACK],
                         ids=["another address", "the honest table's own address"])
def test_a_burst_of_valid_tables_fills_the_browser_yet_a_real_table_still_shows(
    monkeypatch: pytest.MonkeyPatch, claimed: str,
) -> None:
    """A stranger multicasts sixty well-formed tables once (at another address, or at the real
    table's own), more than the browser shows (here five). A real table announced after them
    is shown all the same, in the place of one of them (a browser that turned newcomers away
    hid it for good); and the questions that check a goodbye carry a packet's worth of known
    answers (here three), not one per table shown (five: 59 KB a question at a thousand)."""
    monkeypatch.setattr(discovery, "MAX_SHOWN", 5)
    monkeypatch.setattr(discovery, "KNOWN_ANSWERS", 3)
    monkeypatch.setattr(discovery, "DNSOutgoing", Question)
    table_id = os.urandom(16)
    flood = fake_table_records(claimed, 60)

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, browse_tables(LOOPBACK) as ads:
            shown: dict[str, TableAd] = {}
            await multicast(stranger, flood)
            with trio.fail_after(10):
                await follow(ads, shown)
            assert len(shown) == 5
            async with Announcer(LOOPBACK, port=4572, game="spies_and_lies", options={},
                                 table_id=table_id, fingerprint="K7QF-2MZD-XH4A-9TNB-C3PW",
                                 seats_total=2, cooperating_responders=True) as announcer:
                with trio.fail_after(10):
                    await follow(ads, shown, quiet=1.5)
                assert announcer.name in shown and len(shown) == 5
                Question.sent.clear()
                doubted = next(name for name in shown if name != announcer.name)
                goodbyes = [goodbye_for(r) for r in flood
                            if isinstance(r, DNSPointer) and r.alias == doubted]
                await multicast(stranger, goodbyes)
                await trio.sleep(0.5)
                assert [len(question.answers) for question in Question.sent] == [3]

    trio.run(main)


@pytest.mark.network
def test_a_place_freed_shows_a_table_the_full_browser_had_turned_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ten valid tables at ten addresses and a browser that shows three: when one of those shown
    says goodbye and nobody answers for it, a table turned away takes its place (its records
    are still in the cache), as a table displaced by a flood comes back when the flood goes."""
    monkeypatch.setattr(discovery, "MAX_SHOWN", 3)
    flood = [record for n in range(10) for record in fake_table_records(f"10.9.9.{n}", 1)]

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, browse_tables(LOOPBACK) as ads:
            await multicast(stranger, flood)
            shown: dict[str, TableAd] = {}
            with trio.move_on_after(1.5):
                async for ad in ads:
                    if ad.change == "removed":
                        shown.pop(ad.name, None)
                    else:
                        shown[ad.name] = ad
            assert len(shown) == 3
            gone = next(iter(shown))
            await multicast(stranger, [goodbye_for(r) for r in flood
                                       if isinstance(r, DNSPointer) and r.alias == gone])
            with trio.fail_after(CHECK_TIMEOUT + 2):
                async for ad in ads:
                    if ad.change == "removed":
                        assert ad.name == gone
                    elif ad.name not in shown:
                        break

    trio.run(main)


@pytest.mark.network
def test_a_strangers_txt_for_a_shown_table_is_a_doubt_its_owner_answers_not_a_removal() -> None:
    """Red team 13: one TXT record for a live table's name, sent as the owner's (cache flush),
    naming another table, made its records no valid ad: the table was told removed and never
    shown again. Now its last good ad stays shown (and its owner is asked, which refreshes its
    records)."""
    table_id = os.urandom(16)

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, browse_tables(LOOPBACK) as ads, \
                Announcer(LOOPBACK, port=4573, game="spies_and_lies", options={},
                          table_id=table_id, fingerprint="K7QF-2MZD-XH4A-9TNB-C3PW",
                          seats_total=2, cooperating_responders=True) as announcer:
            with trio.fail_after(4):
                assert (await next_ad_of(ads, table_id)).change == "added"
            spoof = DNSText(announcer.name, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500,
                            txt({**GOOD, "table": os.urandom(16).hex()}))
            await multicast(stranger, [spoof])
            with trio.move_on_after(CHECK_TIMEOUT + 2):
                ad = await next_ad_of(ads, table_id)
                assert ad.change != "removed", "one stranger's TXT removed a live table"

    trio.run(main)


@pytest.mark.network
def test_a_table_in_doubt_for_its_records_that_is_displaced_leaves_no_doubt_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red team 14: a stranger's table, its own bad TXT (a doubt for its records), displaced by
    the stranger's next table: again and again, the tables in doubt for their records grew
    without bound (the displacement ended the doubt and left its reason)."""
    monkeypatch.setattr(discovery, "MAX_SHOWN", 2)
    followers: list[discovery._Follower] = []
    follower_init = discovery._Follower.__init__

    def init(self: discovery._Follower, *args: object) -> None:
        follower_init(self, *args)  # type: ignore[arg-type]
        followers.append(self)

    monkeypatch.setattr(discovery._Follower, "__init__", init)

    async def main() -> None:
        async with open_zeroconf(LOOPBACK) as stranger, browse_tables(LOOPBACK) as ads:
            shown: dict[str, TableAd] = {}
            for _ in range(8):
                records = fake_table_records("10.9.9.9", 1)
                await multicast(stranger, records)
                with trio.fail_after(10):
                    await follow(ads, shown, quiet=0.3)
                [pointer] = [r for r in records if isinstance(r, DNSPointer)]
                bad = DNSText(pointer.alias, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500,
                              txt({**GOOD, "table": os.urandom(16).hex()}))
                await multicast(stranger, [bad])
                await trio.sleep(0.3)
            [follower] = followers
            about_records = follower._doubts._records  # checks about records, run or expired
            assert len(about_records) <= 1, len(about_records)
            assert set(about_records) <= set(follower._shown.names())

    trio.run(main)
