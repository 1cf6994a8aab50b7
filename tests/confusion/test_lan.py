"""Confusion on the LAN: real spycraft processes on loopback (discovery by multicast DNS, play
over TCP). Two random bot peers end with identical audited transcripts; a peer that commits 13
Double Agents is refused at its assign record and forfeits; and the delay between a question
and its answer, measured where the answer arrives, is the same for the Double Agent's answers
as for the forced ones, for a bot peer and for a person who thinks over the Double Agent."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from spycraft.engines.audit import audit_transcript
from spycraft.engines.confusion import GAME, model
from spycraft.engines.confusion.board import SIDE_NAMES
from tests.net.harness import Proc, audit, wait_all

pytestmark = pytest.mark.network
LO = "127.0.0.1"


def host(tmp_path: Path, *extra: str) -> Proc:
    return Proc("host", ["host", "confusion", "--out", str(tmp_path / "host.cbor"),
                         "--interface", LO, "--turn-timeout", "30", *extra], tmp_path)


def test_two_bot_peers_play_confusion_and_end_with_identical_audited_transcripts(
        tmp_path: Path) -> None:
    h = host(tmp_path, "--tokens")
    table = h.table_id()
    peers = [
        Proc(name, ["bots", "--count", "1", "--out", str(tmp_path / name), "--interface", LO,
                    "--table", table, "--turn-timeout", "30", "--bot", "random",
                    "--answer-delay", "0.05"], tmp_path)
        for name in ("alice", "bob")
    ]
    for p in (h, *peers):
        assert p.wait(240) == 0, p.output()
    files = [tmp_path / "host.cbor", *sorted((tmp_path / "alice").glob("*.cbor")),
             *sorted((tmp_path / "bob").glob("*.cbor"))]
    assert len(files) == 3
    first = files[0].read_bytes()
    assert all(f.read_bytes() == first for f in files)
    checked = audit(files[0])
    assert checked.returncode == 0, checked.stdout
    assert "VALID confusion" in checked.stdout


def peer(tmp_path: Path, mode: str, name: str, table: str, *extra: str) -> Proc:
    return Proc(name, [mode, LO, table, str(tmp_path / f"{name}.cbor"), *extra], tmp_path,
                module="tests.confusion.peers")


def test_thirteen_double_agents_on_the_lan_are_refused_at_the_assign_record(
        tmp_path: Path) -> None:
    # The attack: Red (seat 1: the honest bot sits down first) commits 13 Double Agents
    # for White's spies, so that every answer about them would be free.
    h = host(tmp_path)
    table = h.table_id()
    honest = Proc("honest", ["bots", "--count", "1", "--out", str(tmp_path / "honest"),
                             "--interface", LO, "--table", table, "--turn-timeout", "30",
                             "--answer-delay", "0"], tmp_path)
    h.wait_for("sat down", 30)
    cheater = peer(tmp_path, "thirteen", "cheater", table)
    try:
        cheater.wait_for("sent 13 Double Agents", 60)
        wait_all([h, honest], 90)
    finally:
        cheater.kill()
    sent = re.search(r"seat (\d)", cheater.output())
    assert sent, cheater.output()
    seat = int(sent.group(1))
    assert seat == 1
    mine = next((tmp_path / "honest").glob("*.cbor")).read_bytes()
    assert mine == (tmp_path / "host.cbor").read_bytes(), "the honest peers disagree"
    transcript = Transcript.from_bytes(mine)
    kinds = [r.record.kind for r in transcript.records]
    # the cheater's record is never kept: the honest seat proves it with a fraud record in its
    # place (seat 0's assign is record 1, seat 1's record 2)
    assert kinds[seat] == "fraud"
    report = audit_transcript(transcript)
    assert report.result.forfeits == (seat,)
    assert report.result.winner == SIDE_NAMES[1 - seat]
    assert any(f"seat {seat}" in f and f"record {seat + 1}" in f and "invalid proof" in f
               and "not proven to hold each value once" in f for f in report.frauds), \
        report.frauds
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 1 and "FRAUD" in checked.stdout, checked.stdout


# --- timing ----------------------------------------------------------------------------------

DELAY = 0.1  # --answer-delay of both seats
THINK = 0.07  # the bot's thinking per decision; the person's longest thought over a DA answer
TURNS = 100
ALPHA = 1e-3


def ks_pvalue(a: list[float], b: list[float]) -> float:
    """Two-sample Kolmogorov-Smirnov: the asymptotic p-value of the largest gap between the two
    empirical distribution functions (Numerical Recipes' small-sample correction)."""
    gap = 0.0
    for x in sorted(a + b):
        gap = max(gap, abs(sum(v <= x for v in a) / len(a) - sum(v <= x for v in b) / len(b)))
    n = len(a) * len(b) / (len(a) + len(b))
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * gap
    if lam < 0.2:
        return 1.0
    return min(1.0, 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam)
                            for k in range(1, 101)))


def arrivals(path: Path) -> dict[int, float]:
    times = {}
    for line in path.read_text().splitlines():
        seq, _, _, when = line.split()
        times[int(seq)] = float(when)
    return times


def answer_delays(transcript: Transcript, seen: dict[int, dict[int, float]]
                  ) -> dict[int, tuple[list[float], list[float]]]:
    """For each answering seat: (forced answers' delays, Double Agent answers' delays), each the
    time from the question's record leaving to the answer's arriving, on the clock of the seat
    that asked."""
    table = GAME.table()
    state = table.start(transcript.genesis)
    states = [state]
    for signed in transcript.records:
        state = table.apply(state, signed)
        states.append(state)
    end = state.game.game
    truth: dict[str, str] = {}
    for seat, opened in enumerate(end.openings):
        assert opened is not None
        truth.update(model.types_of(end, 1 - seat, opened))
    delays: dict[int, tuple[list[float], list[float]]] = {0: ([], []), 1: ([], [])}
    for i, signed in enumerate(transcript.records):
        record = signed.record
        if record.kind != "answer":
            continue
        before = states[i].game.game
        asker = 1 - record.seat
        question = max(s.record.seq for s in transcript.records[:i]
                       if s.record.kind == "announce")
        delay = seen[asker][record.seq] - seen[asker][question]
        delays[record.seat][truth[before.pending.spy] == "DA"].append(delay)
    return delays


def test_answer_timing_never_tells_the_double_agent(tmp_path: Path) -> None:
    """Both seats hold their answers to ``DELAY``: a bot peer that thinks ``THINK`` over every
    decision, and a scripted person who thinks up to ``THINK`` over a Double Agent's answer and
    a tenth of it over a forced one. Measured where each answer arrives, the Double Agent's
    answers and the forced ones must not be told apart beyond noise: a two-sample
    Kolmogorov-Smirnov test at ALPHA = 0.001. Each question is about the Double Agent or not
    independently of when it is asked, so the two samples are exchangeable even while the
    machine's load changes; an honest run fails one time in a thousand. The leak this catches
    is gross: before, a bot's Double Agent answer took its thinking time and a forced one none
    (the samples apart, p < 1e-9 at these sizes), and a person's thought showed whenever it
    outlasted the delay."""
    h = host(tmp_path, "--first", "white")
    table = h.table_id()
    timing = ("--answer-delay", str(DELAY), "--think", str(THINK), "--turns", str(TURNS))
    players = [peer(tmp_path, "bot", "bot", table, *timing),
               peer(tmp_path, "person", "person", table, *timing)]
    wait_all([h, *players], 180)
    seats = {int(re.search(r"seat (\d)", p.output()).group(1)): p.name for p in players}
    transcript = Transcript.from_bytes((tmp_path / "host.cbor").read_bytes())
    for name in seats.values():
        assert (tmp_path / f"{name}.cbor").read_bytes() == transcript.to_bytes()
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0 and "VALID confusion" in checked.stdout, checked.stdout
    seen = {seat: arrivals(tmp_path / f"{name}.cbor.times") for seat, name in seats.items()}
    for seat, (forced, free) in answer_delays(transcript, seen).items():
        who = seats[seat]
        # how many of each a game asks is the game's: 14 forced against 36 free is seen. Ten of
        # each is enough to catch the leak: samples wholly apart at 10 and 10 give p = 2e-5 here
        assert len(forced) >= 10 and len(free) >= 10, (who, len(forced), len(free))
        assert min(forced + free) >= DELAY, who  # the floor: no answer leaves sooner
        p = ks_pvalue(forced, free)
        assert p > ALPHA, (who, p, sorted(forced), sorted(free))
