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
          age: float = 0.0) -> GameStore:
    """A game folder as a peer leaves it: its seat file and the first ``records`` records."""
    folder = home / "data" / "games" / name
    folder.mkdir(parents=True)
    game = GameStore(folder)
    table = played.genesis.genesis.table
    game.save_seat(SeatFile(game="spies-and-lies", table=table, seat=seat, master=bytes(32),
                            memo={}, roster=[], interface=GONE))
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
    store(tmp_path, played, "cc33-seat0", seat=0, records=len(played.records))  # ended
    done = resume(tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("spycraft resume: 2 unfinished games; name one")
    assert "--discard" in lines[0]
    assert lines[1].split() == ["bb22-seat1", "spies-and-lies", "seat", "1", "20", "records,",
                                "last", "5", "minutes", "ago"]
    assert lines[2].startswith("  aa11-seat0  spies-and-lies") and "2 hours ago" in lines[2]
    assert len(lines) == 3  # the game whose result was stored is over, not listed


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
