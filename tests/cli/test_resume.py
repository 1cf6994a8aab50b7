"""``spycraft resume`` with several games on the machine: it lists them with game and age, lets
a person discard one, and a bare ``resume`` takes the only game where this machine holds a seat.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from spycraft.p2p.storage import GameStore, SeatFile
from tests.cli.person import ROOT

GONE = "bogus9"  # the interface the stored games were played on: not on this machine


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Transcript:
    path = tmp_path_factory.mktemp("resume") / "g.cbor"
    subprocess.run([sys.executable, "-m", "spycraft", "selfplay", "spies-and-lies", "--seed", "5",
                    "--out", str(path), "--quiet"], cwd=ROOT, check=True, capture_output=True)
    return Transcript.from_bytes(path.read_bytes())


def store(home: Path, played: Transcript, name: str, *, seat: int | None, records: int,
          age: float = 0.0, finished: bool = False) -> GameStore:
    """A game folder as a peer leaves it: its seat file and the first ``records`` records."""
    folder = home / "data" / "games" / name
    folder.mkdir(parents=True)
    game = GameStore(folder)
    table = played.genesis.genesis.table
    game.save_seat(SeatFile(game="spies-and-lies", table=table, seat=seat, master=bytes(32),
                            memo={}, roster=[], interface=GONE, finished=finished))
    game.write_genesis(played.genesis)
    game.append(*played.records[:records])
    then = time.time() - age
    os.utime(game.transcript_path, (then, then))
    return game


def resume(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SPYCRAFT_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "spycraft", "resume", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


def test_several_unfinished_games_are_listed_with_their_game_and_age(tmp_path, played):
    store(tmp_path, played, "aa11-seat0", seat=0, records=10, age=7200)
    store(tmp_path, played, "bb22-seat1", seat=1, records=20, age=300)
    store(tmp_path, played, "cc33-seat0", seat=0, records=len(played.records),
          finished=True)  # ended, and its end passed on
    done = resume(tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("spycraft resume: 2 unfinished games; name one")
    assert "--discard" in lines[0]
    assert lines[1].split() == ["bb22-seat1", "spies-and-lies", "seat", "1", "20", "records,",
                                "last", "5", "minutes", "ago"]
    assert lines[2].startswith("  aa11-seat0  spies-and-lies") and "2 hours ago" in lines[2]
    assert len(lines) == 3  # the game that is over is not listed


def test_a_discarded_game_is_put_aside_and_the_other_one_resumes(tmp_path, played):
    store(tmp_path, played, "aa11-seat0", seat=0, records=10)
    store(tmp_path, played, "bb22-seat1", seat=1, records=20)
    done = resume(tmp_path, "--discard", "aa")
    assert done.returncode == 0, done.stderr
    assert "discarded aa11-seat0" in done.stdout
    assert (tmp_path / "data" / "discarded" / "aa11-seat0" / "transcript.cbor").exists()
    listed = resume(tmp_path, "--list")
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["bb22-seat1"]
    bare = resume(tmp_path)
    assert bare.returncode == 2
    assert f"the game was played on '{GONE}'" in bare.stderr  # it went on to bb22's game
    assert len(bare.stderr.strip().splitlines()) == 1


def test_a_bare_resume_takes_the_only_seated_game_over_a_host_left_watching(tmp_path, played):
    store(tmp_path, played, "aa11-host", seat=None, records=10)
    store(tmp_path, played, "bb22-seat0", seat=0, records=12)
    done = resume(tmp_path)
    assert done.returncode == 2
    assert f"the game was played on '{GONE}'" in done.stderr
    assert "unfinished games" not in done.stderr


def test_a_bad_interface_is_a_one_line_error(tmp_path, played):
    store(tmp_path, played, "bb22-seat0", seat=0, records=12)
    done = resume(tmp_path, "--interface", "bogus0")
    assert done.returncode == 2
    assert "bogus0" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_nothing_to_resume_says_so(tmp_path):
    done = resume(tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "spycraft resume: no unfinished game on this machine"


def test_a_resumed_table_shows_the_history_of_the_records_it_held(tmp_path, played):
    """The full-screen table of a resumed game starts with the story of every stored record,
    as it was told while they came (not an empty history pane)."""
    import trio

    from spycraft.cli.app.bridge import Bridge
    from spycraft.cli.app.picture import Painter
    from spycraft.cli.app.run import LanFeed
    from spycraft.crypto.identity import Identity
    from spycraft.engines import registry
    from spycraft.p2p.lobby import resume_session

    held = 30
    game = store(tmp_path, played, "aa11-host", seat=None, records=held)
    seat_file = game.load_seat()
    seat_file.interface = "127.0.0.1"
    game.save_seat(seat_file)
    definition = registry.load("spies-and-lies")
    painter = Painter(definition)
    table = definition.table()
    states = [table.start(played.genesis)]
    for signed in played.records[:held]:
        states.append(table.apply(states[-1], signed))
    told = [painter.tell(b, s, a) for b, s, a in zip(states, played.records, states[1:])]
    expected = [event.text for event in told if event is not None]
    assert len(expected) > 3

    async def attach() -> Bridge:
        session = await resume_session(game, definition=definition,
                                       identity=Identity(bytes(range(32))),
                                       agent_for=lambda seat: None)  # type: ignore[arg-type]
        bridge = Bridge()
        LanFeed(bridge, definition).attach(session)
        session.listener.socket.close()
        return bridge

    bridge = trio.run(attach)
    assert [event.text for event in bridge.view().events] == expected


def test_an_offline_game_left_midway_is_listed_and_resumed_to_its_audited_end(tmp_path):
    """Issue 19.7: an offline game is kept like a LAN one. Left at the end of input after a few
    decisions, ``resume --list`` shows it, a bare ``resume`` continues it from where it was
    (the stored records checked again, the same table), and it ends with a valid transcript
    that begins with the records played before."""
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path))
    left = subprocess.run([sys.executable, "-m", "spycraft", "play", "spies-and-lies",
                           "--offline", "--name", "ada"], cwd=ROOT, env=env,
                          input="#1\n#1\n#1\n", capture_output=True, text=True, timeout=60,
                          check=False)
    assert left.returncode == 1
    last = left.stderr.strip().splitlines()[-1]
    assert last.startswith("spycraft play: left, end of input; the game is saved: "
                           "`spycraft resume "), last
    folder = last.split("`spycraft resume ")[1].split("`")[0]
    assert folder.endswith("-offline")
    kept = Transcript.from_bytes((tmp_path / "data" / "games" / folder / "transcript.cbor")
                                 .read_bytes())
    assert len(kept.records) > 3
    listed = resume(tmp_path, "--list")
    assert listed.stdout.split()[:3] == [folder, "spies-and-lies", "offline"], listed.stdout
    back = subprocess.run([sys.executable, "-m", "spycraft", "resume"], cwd=ROOT, env=env,
                          input="#1\n" * 300, capture_output=True, text=True, timeout=120,
                          check=False)
    assert back.returncode == 0, back.stdout[-2000:] + back.stderr[-2000:]
    assert f"resuming offline game {folder} at record {len(kept.records)}" in back.stdout
    assert "result: you " in back.stdout
    final = tmp_path / "data" / "offline" / f"{folder.removesuffix('-offline')}.cbor"
    done = Transcript.from_bytes(final.read_bytes())
    assert done.genesis.raw == kept.genesis.raw and done.records[:len(kept.records)] == \
        kept.records
    checked = subprocess.run([sys.executable, "-m", "spycraft", "audit", str(final)], cwd=ROOT,
                             env=env, capture_output=True, text=True, timeout=60, check=False)
    assert checked.returncode == 0 and checked.stdout.startswith("VALID"), checked.stdout
    assert resume(tmp_path, "--list").stdout.strip() == "no unfinished game on this machine"


def test_a_resumed_offline_game_is_the_same_table_with_its_memos_and_shows_its_story(
        tmp_path, monkeypatch):
    import threading

    from prompt_toolkit.input import create_pipe_input

    from spycraft.cli.app import table as app_table
    from spycraft.cli.app.picture import Painter
    from spycraft.cli.app.run import play_offline, retold
    from spycraft.cli.local_play import OfflineGame
    from spycraft.crypto.entropy import SeededEntropy
    from spycraft.engines import registry
    from tests.cli.screen import Terminal

    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp_path))
    definition = registry.load("resistance")
    game = OfflineGame.new(definition, definition.genesis_options(5), ["ada", *"bcde"])
    bots = [definition.bots["heuristic"](SeededEntropy(i), i) for i in range(5)]
    while len(game.local.records) < 60:
        game.local.step(bots)
    game.save()
    back = OfflineGame.resume(game.store)
    assert back.local.records == game.local.records
    assert back.local.state.game == game.local.state.game
    for old, new in zip(game.local.seats, back.local.seats):
        assert new.memo == old.memo and new.identity.public == old.identity.public
    story = [event.text for event in retold(Painter(definition), back.local.genesis,
                                            back.local.records)]
    assert story and "Roles dealt and verified" in story[0]

    apps: list[app_table.TableApp] = []
    real = app_table.TableApp.__init__

    def remember(self, *args, **kwargs):
        real(self, *args, **kwargs)
        apps.append(self)

    monkeypatch.setattr(app_table.TableApp, "__init__", remember)
    seen: list[list[str]] = []
    with create_pipe_input() as pipe:
        def person() -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if apps and apps[0].bridge.view().decision is not None:
                    seen.append([e.text for e in apps[0].bridge.view().events])
                    pipe.send_text("\x03")
                    return
                time.sleep(0.02)

        threading.Thread(target=person, daemon=True).start()
        names = [s.name for s in back.local.genesis.genesis.seats]
        with pytest.raises(KeyboardInterrupt):
            play_offline(definition, back.local, names, [None, *bots[1:]], (pipe, Terminal()))
    assert seen and seen[0][:len(story)] == story  # the story so far, then what came after
