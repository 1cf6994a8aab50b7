"""Three LAN hosts in Linux network namespaces (tests/lab/netns-lab.sh): real multicast, real TCP.

Each peer runs in its own host and knows nothing but ``--table HEX`` and ``--interface eth0``:
the host's address and port can only come from mDNS across the lab's bridge. A passive watcher on
the bridge (tests/lab/sniff.py) shows the announcements and connections actually crossing it.
Needs root; skipped, with the reason, where namespaces cannot be made (see ``pytest -rs``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from tests.lab.netns import Lab, unavailable
from tests.net.harness import Proc, audit, wait_all

pytestmark = [pytest.mark.network, pytest.mark.netns]

TURN_TIMEOUT = "30"   # a stuck peer is declared absent well before the waits below run out
GAME_WAIT = 120       # seconds for a whole game; they take about 5-15 s here


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    lab = Lab(3, tmp_path)
    lab.up()
    try:
        yield lab
    finally:
        lab.down()  # also stops whatever still runs inside the lab


def host(lab: Lab, tmp: Path, game: str, *extra: str) -> Proc:
    return lab.proc(1, "host-h1", ["host", game, "--out", str(tmp / "host.cbor"),
                                   "--interface", "eth0", "--turn-timeout", TURN_TIMEOUT, *extra])


def bots(lab: Lab, tmp: Path, on: int, table: str, count: int) -> Proc:
    # --answer-delay: Confusion's bot peers hold every answer that long (3 s by default)
    return lab.proc(on, f"bots-h{on}", ["bots", "--count", str(count), "--table", table,
                                        "--out", str(tmp / f"h{on}"), "--interface", "eth0",
                                        "--turn-timeout", TURN_TIMEOUT, "--answer-delay", "0.05"])


def watch(lab: Lab) -> Proc:
    sniff = lab.proc("sw", "sniff-sw", ["180"], module="tests.lab.sniff")
    sniff.wait_for("sniffing", 20)
    return sniff


def play(lab: Lab, tmp: Path, game: str, counts: dict[int, int],
         *extra: str) -> tuple[str, int, Proc]:
    """Host on h1, bot processes on the other hosts; returns table id, port, and the watcher."""
    sniff = watch(lab)
    h = host(lab, tmp, game, *extra)
    table = h.table_id(30)
    opened = re.search(r"open on (\S+):(\d+)", h.output())
    # the host echoes --interface as given (eth0), not the address it resolved (see the report)
    assert opened and opened.group(1) in (lab.addr(1), "eth0"), h.output()
    peers = [bots(lab, tmp, on, table, count) for on, count in counts.items()]
    wait_all([h, *peers], GAME_WAIT)
    for on, count in counts.items():
        assert len(list((tmp / f"h{on}").glob("*.cbor"))) == count, f"h{on}: {count} transcripts"
    return table, int(opened.group(2)), sniff


def identical_and_audited(tmp: Path, table: str, game: str, seats: int) -> Transcript:
    files = [tmp / "host.cbor", *sorted(tmp.glob("h[0-9]*/*.cbor"))]
    assert len(files) == seats + 1, files
    first = files[0].read_bytes()
    differing = [f.name for f in files if f.read_bytes() != first]
    assert not differing, f"transcripts differ from the host's: {differing}"
    checked = audit(files[0])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"VALID {game}" in checked.stdout, checked.stdout
    transcript = Transcript.from_bytes(first)
    assert transcript.genesis.genesis.table.hex() == table
    assert len(transcript.genesis.genesis.seats) == seats
    return transcript


def crossed_the_bridge(lab: Lab, sniff: Proc, port: int, hosts: list[int]) -> None:
    """h1's mDNS reached every other host by multicast, some other host's spycraft mDNS reached h1
    by multicast, and every host opened TCP to the table at the address and port only mDNS told."""
    seen = set(sniff.output().splitlines())
    a1 = lab.addr(1)
    for i in hosts:
        ai = lab.addr(i)
        # h1 announced / answered on multicast, and the bridge delivered it to host i's cable
        assert f"mdns p{i} out {a1} 224.0.0.251" in seen, f"no mDNS from h1 reached h{i}:\n{seen}"
        assert f"syn p{i} in {ai} {a1}:{port}" in seen, f"h{i} never connected to h1:{port}"
    # Not every host needs to ask: a browser that hears another host ask the same question keeps
    # quiet (mDNS duplicate question suppression, RFC 6762 7.3; seen here), so: at least one.
    asked = [i for i in hosts if f"mdns p1 out {lab.addr(i)} 224.0.0.251" in seen]
    assert asked, f"no multicast query from h{hosts} reached h1:\n{seen}"


def test_spies_and_lies_across_three_lab_hosts_by_real_multicast(lab: Lab, tmp_path: Path) -> None:
    table, port, sniff = play(lab, tmp_path, "spies-and-lies", {2: 1, 3: 1})
    identical_and_audited(tmp_path, table, "spies-and-lies", 2)
    crossed_the_bridge(lab, sniff, port, [2, 3])


def test_resistance_five_players_on_three_lab_hosts(lab: Lab, tmp_path: Path) -> None:
    table, port, sniff = play(lab, tmp_path, "resistance", {2: 2, 3: 3}, "--players", "5")
    identical_and_audited(tmp_path, table, "resistance", 5)
    crossed_the_bridge(lab, sniff, port, [2, 3])
    # the seats on h2 and h3 also reach each other directly across the bridge (full mesh)
    seen = sniff.output()
    a2, a3 = lab.addr(2), lab.addr(3)
    assert re.search(rf"syn p\d in ({a2} {a3}|{a3} {a2}):\d+", seen), "no TCP between h2 and h3"


def test_laptops_on_a_switch_without_a_default_route_find_each_other_with_no_interface(
    lab: Lab, tmp_path: Path,
) -> None:
    """No gateway and no multicast route, as on a bare switch: the only LAN interface is chosen
    (it used to be 127.0.0.1, where nobody else sees the table)."""
    for on in (1, 2):
        lab.script("exec", str(on), "ip", "route", "del", "224.0.0.0/4")
        routes = lab.script("exec", str(on), "ip", "-4", "route", "show").stdout
        assert "default" not in routes and "224.0.0.0" not in routes, routes
    h = lab.proc(1, "host-h1", ["host", "spies-and-lies", "--out", str(tmp_path / "host.cbor"),
                                "--turn-timeout", TURN_TIMEOUT])
    table = h.table_id(30)
    assert f"open on {lab.addr(1)}:" in h.output(), h.output()
    peer = lab.proc(2, "bots-h2", ["bots", "--count", "2", "--table", table,
                                   "--out", str(tmp_path / "h2"), "--turn-timeout", TURN_TIMEOUT])
    wait_all([h, peer], GAME_WAIT)
    identical_and_audited(tmp_path, table, "spies-and-lies", 2)
