"""The full-screen table driven as a person drives it, through prompt-toolkit's pipe input and a
dummy output: every game played to its end offline by Enter (the first option each time), the
decision panel's typing and arrows, the help key, and leaving with Ctrl-C and Ctrl-D."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.run import play_offline
from spycraft.cli.app.table import TableApp
from spycraft.cli.tui import PlayerLeft
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.audit import audit
from spycraft.engines.local import LocalTable, new_local_table

PLAYERS = {"spies-and-lies": 2, "resistance": 5, "shady-agents": 4, "confusion": 2, "spynet": 2}


def table(game: str, seed: int = 1) -> tuple[registry.GameDefinition, LocalTable, list]:
    definition = registry.load(game)
    players = PLAYERS[game]
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, definition.genesis_options(players), players,
                            entropy.child("table"), [f"p{i}" for i in range(players)])
    bots = [None] + [definition.bots["heuristic"](entropy.child(f"bot{i}"), i)
                     for i in range(1, players)]
    return definition, local, bots


class Keys:
    """A person at the pipe: waits until the table shows what ``ready`` looks for, then types."""

    def __init__(self, pipe, apps: list[TableApp]) -> None:
        self.pipe = pipe
        self.apps = apps
        self.stop = threading.Event()

    def bridge(self) -> Bridge | None:
        return self.apps[0].bridge if self.apps else None

    def when(self, ready: Callable[[Bridge], bool], keys: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.stop.is_set():
            bridge = self.bridge()
            if bridge is not None and ready(bridge):
                self.pipe.send_text(keys)
                return
            time.sleep(0.005)
        raise AssertionError(f"the table never became ready for {keys!r}")


def play(game: str, driver: Callable[[Keys], None], tmp_path, monkeypatch) -> tuple[int, list]:
    """Play ``game`` offline in the application on a pipe; ``driver`` types in its own thread."""
    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp_path))
    definition, local, bots = table(game)
    apps: list[TableApp] = []
    real = TableApp.__init__

    def remember(self, *args, **kwargs):  # the test's hand on the application it drives
        real(self, *args, **kwargs)
        apps.append(self)

    monkeypatch.setattr(TableApp, "__init__", remember)
    errors: list[BaseException] = []
    with create_pipe_input() as pipe:
        keys = Keys(pipe, apps)

        def drive() -> None:
            try:
                driver(keys)
            except BaseException as exc:  # noqa: BLE001 (reported by the test)
                errors.append(exc)

        thread = threading.Thread(target=drive, daemon=True)
        thread.start()
        try:
            code = play_offline(definition, local, local.genesis.genesis and
                                [s.name for s in local.genesis.genesis.seats], bots,
                                (pipe, DummyOutput()))
        finally:
            keys.stop.set()
            thread.join(10)
    assert not errors, errors
    return code, [local, apps[0]]


def deciding(bridge: Bridge) -> bool:
    return bridge.view().decision is not None


def ended(bridge: Bridge) -> bool:
    return bridge.view().closing is not None


def enter_to_the_end(keys: Keys) -> None:
    while not keys.stop.is_set():
        keys.when(lambda b: deciding(b) or ended(b), "\r")
        time.sleep(0.01)  # the answer is taken before the next look


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_game_plays_to_the_end_by_enter_alone_and_its_transcript_audits(
        game, tmp_path, monkeypatch):
    code, (local, app) = play(game, enter_to_the_end, tmp_path, monkeypatch)
    assert code == 0
    closing = app.bridge.view().closing
    assert closing is not None and closing[0].startswith("result: you ")
    assert closing[1].startswith("audit: VALID")
    stored = tmp_path / "data" / "offline" / f"{local.genesis.genesis.table.hex()}.cbor"
    assert closing[2] == f"transcript stored in {stored}"
    assert audit(stored.read_bytes()).valid
    assert app.bridge.view().events, "the history told the game"


@pytest.mark.parametrize("key,left", [("\x03", KeyboardInterrupt), ("\x04", PlayerLeft)])
def test_ctrl_c_and_ctrl_d_at_a_decision_leave_as_the_line_mode_does(key, left, tmp_path,
                                                                    monkeypatch):
    with pytest.raises(left):
        play("spies-and-lies", lambda keys: keys.when(deciding, key), tmp_path, monkeypatch)
    assert not (tmp_path / "data" / "offline").exists()  # nothing stored for a game left


def test_typing_filters_the_options_and_enter_takes_the_one_named(tmp_path, monkeypatch):
    taken: list[str] = []

    def driver(keys: Keys) -> None:
        keys.when(deciding, "")
        decision = keys.bridge().view().decision
        last = decision.labels[-1]
        keys.when(deciding, last)
        app = keys.apps[0]
        keys.when(lambda b: app.choices is not None and app.choices.text == last, "\r")
        taken.append(last)
        keys.when(lambda b: b.view().decision is not decision, "\x03")

    apps: list[TableApp] = []
    real = TableApp.run

    def run(self):
        apps.append(self)
        real(self)

    monkeypatch.setattr(TableApp, "run", run)
    with pytest.raises(KeyboardInterrupt):
        play("spies-and-lies", driver, tmp_path, monkeypatch)
    # the option typed in full is the one taken, told in the history in its own words
    told = [event.text for event in apps[0].bridge.view().events]
    assert f"you chose: {taken[0]}" in told


def test_arrows_move_the_highlight_and_the_help_key_shows_the_guide(tmp_path, monkeypatch):
    seen: dict[str, object] = {}

    def driver(keys: Keys) -> None:
        keys.when(deciding, "\x1b[B")  # down arrow
        app = keys.apps[0]
        keys.when(lambda b: app.choices is not None and app.choices.cursor == 1, "?")
        keys.when(lambda b: app.help_open, "")
        seen["help"] = app.help()
        seen["highlighted"] = app.choices.label()
        keys.when(lambda b: True, "\x1b[21~")  # F10: nothing; then Ctrl-C leaves
        keys.when(lambda b: True, "\x03")

    with pytest.raises(KeyboardInterrupt):
        play("spies-and-lies", driver, tmp_path, monkeypatch)
    assert f"Highlighted: {seen['highlighted']}" in str(seen["help"])
    assert "Spies" in str(seen["help"]) or "No guide for this game yet" in str(seen["help"])
