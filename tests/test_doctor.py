"""``spycraft doctor`` as a person runs it: on this machine's loopback, and in the lab on an open
LAN (it passes), on a LAN that isolates its clients, with multicast refused, and with two
interfaces and no default route (each: the failure, the fix, exit status 1).

The lab tests need root (network namespaces) and are skipped with the reason elsewhere.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSRecord, DNSService, DNSText
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

from spycraft.cli.doctor import DOCTOR_TYPE, firewall_fix, shown
from spycraft.p2p.discovery import ZeroconfBridge, open_zeroconf
from tests.lab.netns import BareNamespace, Lab, unavailable
from tests.net.harness import Proc

ROOT = Path(__file__).resolve().parents[1]


def flat(out: str) -> str:
    """The doctor's output as one line (it sets its lines for the terminal's width)."""
    return " ".join(out.split())


def doctor(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spycraft", "doctor", *args], cwd=ROOT,
                          env=dict(os.environ, SPYCRAFT_HOME=str(home)), capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.network
def test_the_doctor_passes_on_loopback_and_lists_the_interfaces(tmp_path: Path) -> None:
    done = doctor("--interface", "127.0.0.1", "--wait", "0.5", home=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "interfaces (IPv4):" in out and "lo 127.0.0.1/8 [loopback" in out
    assert "using lo (127.0.0.1): given with --interface" in out
    assert "ok    mDNS: announced a test service on lo and a second responder found it" in out
    assert "ok    TCP: listened on 127.0.0.1:" in out
    assert "FAIL" not in out and done.stderr == ""
    assert out.rstrip().endswith("a game on this machine alone can work on 127.0.0.1")


def test_the_doctor_refuses_an_interface_not_on_this_machine_and_lists_the_real_ones(
    tmp_path: Path,
) -> None:
    done = doctor("--interface", "10.255.255.1", home=tmp_path)
    assert done.returncode == 2
    assert "FAIL  interface: 10.255.255.1 is not an address of this machine" in done.stdout
    assert "lo 127.0.0.1/8" in done.stdout and "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("platform, words", [
    ("darwin", ["accept incoming network connections", "Local Network"]),
    ("win32", ["Private networks", "Allow an app through firewall"]),
    ("linux", ["ufw allow in on wlan0", "firewall-cmd --add-service=mdns"]),
])
def test_the_firewall_fix_is_the_one_of_the_platform_it_runs_on(
    platform: str, words: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    fix = firewall_fix("wlan0")
    assert all(word in fix for word in words), fix


# --- in the lab ----------------------------------------------------------------------------------


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    lab = Lab(2, tmp_path)
    lab.up()
    try:
        yield lab
    finally:
        lab.down()


def doctors(lab: Lab, *args: str) -> list[Proc]:
    """The doctor on both lab hosts at once, each with no --interface (there is no default
    route in the lab: the only LAN interface, eth0, must be chosen)."""
    return [lab.proc(on, f"doctor-h{on}", ["doctor", "--peers", "1", "--wait", "15", *args])
            for on in (1, 2)]


@pytest.mark.netns
def test_two_doctors_on_an_open_lan_hear_and_reach_each_other(lab: Lab) -> None:
    found = doctors(lab)
    for on, proc in zip((1, 2), found):
        assert proc.wait(60) == 0, proc.output()
        out = proc.output()
        assert f"using eth0 ({lab.addr(on)}): no default route; eth0 is the only LAN" in out
        other = lab.addr(3 - on)
        assert "ok    peer: heard doctor-" in out and f"reached {other}:" in out, out
        assert "FAIL" not in out
        assert f"result: a LAN game can work on eth0 ({lab.addr(on)})" in out


@pytest.mark.netns
def test_a_lan_that_isolates_its_clients_is_explained(lab: Lab) -> None:
    for port in ("p1", "p2"):  # guest Wi-Fi: each client reaches the router, not the others
        isolated = lab.script("exec", "sw", "bridge", "link", "set", "dev", port, "isolated", "on")
        assert isolated.returncode == 0, isolated.stderr
    for proc in doctors(lab, "--wait", "6"):
        assert proc.wait(60) == 1, proc.output()
        out = flat(proc.output())
        assert "ok mDNS" in out and "ok TCP" in out  # this machine itself is fine
        assert "FAIL peers: reached 0 other machine(s), 1 needed" in out
        assert "isolate clients" in out and "client isolation" in out
        assert "firewall" in out and "VPN" in out
        assert "result: a LAN game will not work here" in out


@pytest.mark.netns
def test_a_machine_that_refuses_multicast_is_explained(lab: Lab) -> None:
    refused = lab.script("exec", "1", "sh", "-c",
                         "echo 0 > /proc/sys/net/ipv4/igmp_max_memberships")
    assert refused.returncode == 0, refused.stderr
    proc = lab.proc(1, "doctor-h1", ["doctor"])
    assert proc.wait(60) == 1, proc.output()
    out = flat(proc.output())
    assert "FAIL mDNS: the system refused to join the mDNS group 224.0.0.251 on eth0" in out
    assert "igmp_max_memberships" in out and "ufw" in out  # the fixes on Linux
    assert "result: a LAN game will not work here" in out


@pytest.mark.netns
def test_two_interfaces_and_no_default_route_ask_for_one(tmp_path: Path) -> None:
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    with BareNamespace("dr") as bare:
        for pair, address in (("a", "10.64.0.1/24"), ("b", "10.65.0.1/24")):
            bare.ip("link", "add", f"{pair}0", "type", "veth", "peer", "name", f"{pair}1")
            bare.ip("addr", "add", address, "dev", f"{pair}0")
            bare.ip("link", "set", f"{pair}0", "up")
            bare.ip("link", "set", f"{pair}1", "up")
        env = ["env", f"SPYCRAFT_HOME={tmp_path}"]
        asked = bare.run([*env, sys.executable, "-m", "spycraft", "doctor"])
        assert asked.returncode == 1, asked.stdout + asked.stderr
        said = flat(asked.stdout)
        assert "several interfaces could carry a table" in said
        assert "a0 (10.64.0.1)" in said and "b0 (10.65.0.1)" in said
        assert "spycraft doctor --interface NAME" in said
        chosen = bare.run([*env, sys.executable, "-m", "spycraft", "doctor", "--interface", "a0",
                           "--wait", "0.5"])
        assert chosen.returncode == 0, chosen.stdout + chosen.stderr
        assert "result: a LAN game can work on a0 (10.64.0.1)" in flat(chosen.stdout)


def fake_doctor(resolvable: bool, address: str = "10.123.0.1", port: int = 9) -> list[DNSRecord]:
    """A doctor's name as a stranger announces it: its PTR alone, or every record, pointing at
    an address that nothing answers from."""
    name = f"stranger-{os.urandom(6).hex()}.{DOCTOR_TYPE}"
    pointer = DNSPointer(DOCTOR_TYPE, _TYPE_PTR, _CLASS_IN, 4500, name)
    if not resolvable:
        return [pointer]
    host = f"{name.split('.')[0]}.local."
    return [pointer,
            DNSService(name, _TYPE_SRV, _CLASS_IN | _CLASS_UNIQUE, 4500, 0, 0, port, host),
            DNSText(name, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500, b"\x00"),
            DNSAddress(host, _TYPE_A, _CLASS_IN | _CLASS_UNIQUE, 4500,
                       socket.inet_aton(address))]


def multicast(stranger: ZeroconfBridge, records: list[DNSRecord]) -> None:
    """Send ``records`` as answers, 24 to a packet (from zeroconf's loop)."""
    for start in range(0, len(records), 24):
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for record in records[start:start + 24]:
            out.add_answer_at_time(record, 0)
        stranger.zc.async_send(out)


def doctors_in_a_flood(tmp_path: Path, fakes: list[DNSRecord], starts: dict[str, float],
                       wait: float) -> dict[str, subprocess.CompletedProcess[bytes]]:
    """Doctors started at ``starts`` (seconds), each needing one other, while a stranger
    multicasts ``fakes`` every 0.5 s: how each ended."""
    done: dict[str, subprocess.CompletedProcess[bytes]] = {}

    async def doctor_after(delay: float, who: str) -> None:
        await trio.sleep(delay)
        done[who] = await trio.run_process(
            [sys.executable, "-m", "spycraft", "doctor", "--interface", "127.0.0.1",
             "--peers", "1", "--wait", f"{wait:g}"], cwd=ROOT,
            env=dict(os.environ, SPYCRAFT_HOME=str(tmp_path / who)), capture_stdout=True,
            capture_stderr=True, check=False)

    async def main() -> None:
        async with open_zeroconf("127.0.0.1") as stranger, trio.open_nursery() as nursery:
            async def send() -> None:
                multicast(stranger, fakes)

            async def announce() -> None:
                while True:
                    await stranger.call(send)
                    await trio.sleep(0.5)

            nursery.start_soon(announce)
            async with trio.open_nursery() as doctors:
                for who, delay in starts.items():
                    doctors.start_soon(doctor_after, delay, who)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return done


def each_reached_the_other(done: dict[str, subprocess.CompletedProcess[bytes]]) -> None:
    for run in done.values():
        out = run.stdout.decode()
        assert run.returncode == 0, out + run.stderr.decode()
        assert "reached 127.0.0.1:" in out and "Traceback" not in run.stderr.decode()
        assert "FAIL" not in out


@pytest.mark.network
@pytest.mark.parametrize("resolvable", [False, True], ids=["names alone", "whole ads"])
def test_two_doctors_find_each_other_through_a_strangers_flood_of_doctor_names(
        tmp_path: Path, resolvable: bool) -> None:
    """A stranger multicasts 150 doctor names, again and again (names alone, which never
    resolve, or whole ads pointing where nothing answers), and two doctors that each need the
    other start 2 s apart: each reaches the other (checking names as they came, eight at a
    time, the first 64 heard decided it: both failed), and the fakes it could not reach are
    notes, not failures, once the other answered."""
    fakes = [record for _ in range(150) for record in fake_doctor(resolvable)]
    started = time.monotonic()
    done = doctors_in_a_flood(tmp_path, fakes, {"a": 0.5, "b": 2.5}, wait=15)
    assert time.monotonic() - started < 40
    each_reached_the_other(done)


@pytest.mark.network
def test_a_doctor_heard_while_every_listed_stranger_is_still_being_reached_is_reached(
        tmp_path: Path) -> None:
    """A stranger announces 70 whole doctor ads pointing at its own port, which takes every
    connection and never answers, so each of the 64 listed takes the whole TCP timeout and none
    can make room; the real doctor, heard 1.5 s later inside that window, waits for the room of
    the first failures and is reached (it was dropped for good, and the doctor failed, when a
    name heard then was turned away: it is announced once)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(512)  # the kernel completes each handshake; nothing is ever read or answered
    fakes = [record for _ in range(70)
             for record in fake_doctor(True, "127.0.0.1", silent.getsockname()[1])]
    with silent:
        # 14 s is enough alone; under the whole suite's load, parsing the stranger's 70 ads
        # every 0.5 s slowed the first doctor to 55 strangers heard in 14 s (each doctor stops
        # once it reached the other, so a longer bound costs a passing run nothing)
        done = doctors_in_a_flood(tmp_path, fakes, {"first": 0.0, "second": 1.5}, wait=30)
    first = done["first"].stdout.decode()
    assert "heard more than 64 other doctors: checking 64 at a time" in first
    each_reached_the_other(done)


def test_a_strangers_name_is_printed_with_what_a_terminal_acts_on_as_codes() -> None:
    """A name heard by mDNS is anyone's: a newline in it would start a forged report line, an
    escape sequence would redraw the screen."""
    assert shown("a\nok    peer: b\x1b[2J") == "a\\x0aok    peer: b\\x1b[2J"
    assert shown("Ana's laptop é") == "Ana's laptop é"
