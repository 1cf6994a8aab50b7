"""Several spycraft processes on loopback: discovery by multicast DNS, play over TCP."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tests.net.harness import Proc, audit, spycraft, wait_all

pytestmark = pytest.mark.network
LO = "127.0.0.1"


def host(tmp: Path, game: str = "spies-and-lies", *extra: str, timeout: str = "20") -> Proc:
    return Proc("host", ["host", game, "--out", str(tmp / "host.cbor"), "--interface", LO,
                         "--turn-timeout", timeout, *extra], tmp)


def bots(tmp: Path, name: str, table: str, count: int = 1, *extra: str,
         timeout: str = "20") -> Proc:
    return Proc(name, ["bots", "--count", str(count), "--out", str(tmp / name), "--interface", LO,
                       "--table", table, "--turn-timeout", timeout, *extra], tmp)


def bot_peers_play(tmp: Path, game: str, host_args: tuple[str, ...], peers: dict[str, int],
                   wait: float) -> tuple[bytes, dict[str, list[Path]], dict[str, Proc]]:
    """A host opens ``game`` and bot processes (name -> how many seats each) play it to the end:
    each process stored one transcript per seat, every one byte for byte the host's, and the
    host's audits VALID. The host's transcript, each process's transcripts and each process, for
    more checks."""
    h = host(tmp, game, *host_args, timeout="30")
    table = h.table_id(30)
    procs = {name: bots(tmp, name, table, count, timeout="30") for name, count in peers.items()}
    wait_all([h, *procs.values()], wait)

    mine = {name: sorted((tmp / name).glob("*.cbor")) for name in peers}
    assert [len(files) for files in mine.values()] == list(peers.values()), mine
    final = (tmp / "host.cbor").read_bytes()
    differing = [f.name for files in mine.values() for f in files if f.read_bytes() != final]
    assert not differing, f"transcripts differ from the host's: {differing}"
    checked = audit(tmp / "host.cbor")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"VALID {game}" in checked.stdout, checked.stdout
    return final, mine, procs


def watch(tmp: Path, table: str, *extra: str) -> Proc:
    return Proc("watch", ["watch", table, "--out", str(tmp / "watch.cbor"), "--interface", LO,
                          "--wait", "60", *extra], tmp)


def test_three_processes_play_a_game_and_end_with_identical_audited_transcripts(tmp_path,
                                                                                monkeypatch):
    """...with table talk (alice's bot says two lines) and a spectator that follows the game
    from the seats' ads to the same transcript, the same talk and a valid audit."""
    h = host(tmp_path)
    table = h.table_id()
    w = watch(tmp_path, table)
    # The bots take their time so that the game is still in play when the spectators' browse
    # of the seats' ads answers, even on a loaded machine (a finished game has no ad to watch).
    a = bots(tmp_path, "alice", table, 1, "--think", "0.3", "--say", "good luck|have fun")
    b = bots(tmp_path, "bob", table, 1, "--think", "0.3")
    code, seen = watch_on_a_pipe(table, tmp_path, monkeypatch)  # a second, full-screen spectator
    for p in (h, a, b, w):
        assert p.wait(90) == 0, p.output()
    assert code == 0, seen
    assert seen["public"] and seen["events"] > 3 and not seen["decided"]
    # the spectator's history is the game's whole story, from the first record on
    told = iter(seen["history"])
    missing = [text for text in story_of((tmp_path / "host.cbor").read_bytes())
               if text not in told]
    assert not missing, (missing[:3], seen["history"][:5])
    assert any(line.startswith("audit: VALID") for line in seen["closing"]), seen
    assert any("good luck" in line for line in seen["chat"]), seen
    assert f"(seat {speaker_of(tmp_path)}): good luck" in seen["talk_on_screen"], seen
    files = [tmp_path / "host.cbor", *sorted((tmp_path / "alice").glob("*[0-9].cbor")),
             *sorted((tmp_path / "bob").glob("*[0-9].cbor")), tmp_path / "watch.cbor"]
    assert len(files) == 4
    first = files[0].read_bytes()
    assert all(f.read_bytes() == first for f in files)
    checked = audit(files[0])
    assert checked.returncode == 0, checked.stdout
    assert "VALID spies-and-lies" in checked.stdout
    assert "chat: VALID, 2 chat lines" in checked.stdout

    speaker = speaker_of(tmp_path)
    for p in (h, w):  # the host and the spectator printed alice's lines as they came
        assert f"(seat {speaker}): good luck" in p.output(), p.output()
        assert f"(seat {speaker}): have fun" in p.output()
    assert "through seat" in w.output() and "audit: VALID spies-and-lies" in w.output()
    talk = (tmp_path / "host.chat.cbor").read_bytes()
    assert (tmp_path / "watch.chat.cbor").read_bytes() == talk
    assert next((tmp_path / "bob").glob("*.chat.cbor")).read_bytes() == talk
    replayed = spycraft("replay", "--brief", str(tmp_path / "host.cbor")).stdout
    said = replayed.index(f"(seat {speaker}): good luck")
    assert replayed.index(" 1 ") < said < replayed.index("result:")

    edited = bytearray(talk)
    edited[talk.index(b"have fun")] ^= 0x20  # "Have fun": not what the seat signed
    (tmp_path / "host.chat.cbor").write_bytes(bytes(edited))
    tampered = audit(tmp_path / "host.cbor")
    assert tampered.returncode == 1, tampered.stdout
    assert f"chat message 2 of seat {speaker}: the signature does not verify" in tampered.stdout


def story_of(data: bytes) -> list[str]:
    """The history lines of a whole transcript, as the full-screen table tells them."""
    from spycraft.cli.app.picture import Painter
    from spycraft.crypto.transcript import Transcript
    from spycraft.engines import registry

    transcript = Transcript.from_bytes(data)
    painter = Painter(registry.load(transcript.genesis.genesis.game))
    states = [painter.table.start(transcript.genesis)]
    for signed in transcript.records:
        states.append(painter.table.apply(states[-1], signed))
    told = [painter.tell(b, s, a) for b, s, a in zip(states, transcript.records, states[1:])]
    return [event.text for event in told if event is not None]


def speaker_of(tmp: Path) -> int:
    """The seat alice's bot played (the one that talked)."""
    return int(next((tmp / "alice").glob("*[0-9].cbor")).stem.rsplit("seat", 1)[1])


def test_a_peer_killed_mid_game_resumes_and_the_game_completes(tmp_path):
    h = host(tmp_path)
    table = h.table_id()
    a = bots(tmp_path, "alice", table, 1, "--think", "0.1")
    b = bots(tmp_path, "bob", table, 1, "--think", "0.1")
    deadline = time.monotonic() + 60
    while b.records_stored() < 15:
        assert time.monotonic() < deadline, b.output()
        time.sleep(0.1)
    b.kill()  # SIGKILL: no chance to clean up
    killed_at = b.records_stored()
    resumed = Proc("bob-resumed", ["resume", "--interface", LO, "--turn-timeout", "20"], tmp_path,
                   home=b.home)
    for p in (h, a, resumed):
        assert p.wait(120) == 0, p.output()
    assert "resuming table" in resumed.output()
    final = (tmp_path / "host.cbor").read_bytes()
    assert b.stored_transcripts()[0].read_bytes() == final
    assert next((tmp_path / "alice").glob("*.cbor")).read_bytes() == final
    assert audit(tmp_path / "host.cbor").returncode == 0
    assert b.records_stored() > killed_at


def test_garbage_and_oversize_frames_are_refused_with_a_reason_and_the_game_goes_on(tmp_path):
    import socket

    h = host(tmp_path)
    table = h.table_id()
    port = int(re.search(r"open on 127\.0\.0\.1:(\d+)", h.output()).group(1))
    for junk in (b"\xff\xff\xff\xff" + b"x" * 64, os.urandom(200), b"\x00\x00\x00\x03\xa1\x01\x02"):
        with socket.create_connection((LO, port), timeout=5) as s:
            s.sendall(junk)
            s.settimeout(5)
            try:
                s.recv(100)  # the table answers nothing useful and closes
            except OSError:
                pass
    a, b = bots(tmp_path, "alice", table), bots(tmp_path, "bob", table)
    for p in (h, a, b):
        assert p.wait(90) == 0, p.output()
    log = h.output()
    assert "exceeds the limit" in log
    assert log.count("lobby refused a peer") >= 3
    assert audit(tmp_path / "host.cbor").returncode == 0


def test_a_player_who_leaves_the_lobby_frees_the_seat_for_another(tmp_path):
    h = host(tmp_path)
    table = h.table_id()
    quitter = bots(tmp_path, "quitter", table)
    h.wait_for("sat down", 30)
    quitter.kill()  # gets up before the table is full
    h.wait_for("left before the game started", 30)
    a, b = bots(tmp_path, "alice", table), bots(tmp_path, "bob", table)
    for p in (h, a, b):
        assert p.wait(90) == 0, p.output()
    assert audit(tmp_path / "host.cbor").returncode == 0
    assert (tmp_path / "host.cbor").read_bytes() == (
        next((tmp_path / "alice").glob("*.cbor")).read_bytes()
    )


def watch_on_a_pipe(table: str, tmp: Path, monkeypatch) -> tuple[int, dict]:
    """``spycraft watch TABLE`` in this process, in the full-screen table on a pipe and a dummy
    output: what it showed (the public picture, history, talk, no decision, the final lines,
    and the line of talk as its screen drew it); q closes the final screen."""
    import threading

    from prompt_toolkit.input import create_pipe_input

    from spycraft.cli import watch as watching
    from spycraft.cli.app.run import LanUi
    from spycraft.cli.app.table import attached
    from spycraft.cli.lan import _run_trio
    from spycraft.cli.main import build_parser
    from tests.cli.screen import Terminal, screen_text

    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp / "home-screen"))
    args = build_parser().parse_args(["watch", table, "--interface", LO, "--wait", "60"])
    seen: dict = {"public": False, "events": 0, "decided": False, "closing": (), "chat": (),
                  "talk_on_screen": ""}
    with create_pipe_input() as pipe:
        ui = LanUi((pipe, Terminal()))
        args.ui = ui

        def look() -> None:
            while not ui.bridge.closed.is_set():
                view = ui.bridge.view()
                seen["decided"] |= view.decision is not None
                seen["public"] |= (view.picture is not None and view.seat is None
                                   and ui.app.watching)
                drawn = screen_text(ui.app)
                if "good luck" in drawn:  # the line of talk, as the spectator's screen shows it
                    seen["talk_on_screen"] = next(line for line in drawn.splitlines()
                                                  if "good luck" in line)
                if view.closing is not None:
                    seen.update(events=len(view.events), closing=view.closing, chat=view.chat,
                                history=[event.text for event in view.events])
                    pipe.send_text("q")
                    return
                time.sleep(0.02)

        threading.Thread(target=look, daemon=True).start()
        with attached(ui.app):
            code = _run_trio(watching.watch, args)
    return code, seen
