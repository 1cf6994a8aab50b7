"""The lobby (``spycraft`` alone at a terminal) driven as a person drives it: through
prompt-toolkit's pipe input and a dummy output for the form and the list, and in a real
pseudo-terminal for the bare command and Ctrl-C. The LAN side (a real table browsed and joined
from the lobby) is in ``tests/net/test_human_play.py``."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from spycraft.cli.app.lobby import LobbyApp, Tables
from spycraft.cli.main import build_parser
from spycraft.p2p.discovery import TableAd, options_digest
from tests.cli.person import Person, one_line_exit

DOWN, UP, ENTER, ESC = "\x1b[B", "\x1b[A", "\r", "\x1b"


def ad(table: int, game: str = "resistance", options: dict | None = None, taken: int = 1,
       total: int = 5, watching: int | None = None, source: str | None = None,
       opener: str | None = "ada") -> TableAd:
    options = {"blind_spies": False, "plot": True, "targeting": False} if options is None \
        else options
    name = f"spycraft-{bytes([table]) * 16}" + (f"-{source}" if source else "")
    return TableAd("added", name, bytes([table]) * 16, game, options_digest(game, options),
                   taken, total, "K7QF-2MZD", 1, "127.0.0.1", 4000, watching, source,
                   tuple(sorted(options.items())), opener)


def drive(app: LobbyApp, pipe, steps: list[tuple[Callable[[LobbyApp], bool], str]]) -> None:
    """Type each step's keys once the lobby shows what it waits for (in a thread)."""
    def run() -> None:
        for ready, keys in steps:
            deadline = time.monotonic() + 20
            while not ready(app):
                if time.monotonic() > deadline:  # the test fails: the lobby is left
                    app.note = f"never ready for {keys!r}"
                    pipe.send_text("\x04")
                    return
                time.sleep(0.01)
            time.sleep(0.05)
            pipe.send_text(keys)

    threading.Thread(target=run, daemon=True).start()


def lobby_choice(steps: list[tuple[Callable[[LobbyApp], bool], str]],
                 tables: Tables | None = None, interface: str | None = "lo-test") -> tuple:
    """The command the lobby chose (the tables given, no browse)."""
    with create_pipe_input() as pipe:
        app = LobbyApp(interface, "test", pipe, DummyOutput(), tables=tables)
        drive(app, pipe, steps)
        return app.run(browse_lan=False)


def asking(key: str) -> Callable[[LobbyApp], bool]:
    return lambda app: (q := app.question()) is not None and q.key == key


def showing(text: str) -> Callable[[LobbyApp], bool]:
    return lambda app: any(text in label for label in app.labels())


def test_the_form_opens_a_lan_table_as_play_would_be_typed() -> None:
    argv = lobby_choice([
        (showing("Open a new table"), ENTER),                  # the first row with no tables
        (asking("game"), DOWN + ENTER),                        # The Resistance
        (asking("players"), DOWN + DOWN + ENTER),              # 7 players
        (asking("option:plot"), DOWN + ENTER),                 # yes
        (asking("option:targeting"), ENTER),                   # no
        (asking("option:blind_spies"), ENTER),                 # no
        (asking("bots"), DOWN * 6 + UP + ENTER),               # 5 bots
        (asking("level"), ENTER),                              # normal, the default
    ])
    assert argv == ("play", "resistance", "--players", "7", "--plot", "--bots", "5",
                    "--interface", "lo-test")
    args = build_parser().parse_args(list(argv))
    assert (args.players, args.option_plot, args.option_targeting, args.bots) == (7, True,
                                                                                 False, 5)


def test_the_form_plays_offline_with_a_choice_option_and_esc_goes_back() -> None:
    argv = lobby_choice([
        (showing("Play offline"), DOWN + ENTER),
        (asking("game"), DOWN * 3 + ENTER),                    # Confusion
        (asking("players"), ENTER),                            # 2
        (asking("option:tokens"), ESC),                        # back to the players
        (asking("players"), ENTER),
        (asking("option:tokens"), DOWN + ENTER),               # yes
        (asking("option:first"), DOWN + DOWN + ENTER),         # random, white, red: red
        (asking("level"), ENTER),                              # normal, the default
    ])
    assert argv == ("play", "confusion", "--players", "2", "--tokens", "--first", "red",
                    "--offline")
    args = build_parser().parse_args(list(argv))
    assert (args.offline, args.option_first, args.option_tokens) == (True, "red", True)


def test_tables_are_listed_joined_and_watched_and_a_full_table_says_why() -> None:
    tables = Tables()
    tables.apply(ad(1, taken=5))                               # full
    tables.apply(ad(2, "confusion", {"first": "red", "tokens": False}, 1, 2,
                    opener="eve\x1b[2J"))
    # two spectators, each linked to both seats (seat 0 has not yet seen the second one)
    tables.apply(ad(3, "spies-and-lies", {}, 2, 2, watching=1, source="0", opener=None))
    tables.apply(ad(3, "spies-and-lies", {}, 2, 2, watching=2, source="1", opener=None))
    tables.apply(ad(4, "chess", {}, 1, 2))                     # a game this copy lacks
    rows = [row.text for row in tables.rows("lo")]
    assert rows[0].startswith("Confusion") and "first red" in rows[0]
    assert "opened by eve?[2J [K7QF-2MZD]" in rows[0] and "1/2 seats" in rows[0]
    assert rows[1].startswith("The Resistance · plot · 5/5 seats · opened by ada")
    assert "does not know" in rows[2]
    assert rows[3].startswith("Stratego: Spies & Lies · no options · in play, 2 seats · "
                              "2 watching")
    with create_pipe_input() as pipe:
        app = LobbyApp("lo", "test", pipe, DummyOutput(), tables=tables)
        drive(app, pipe, [(showing("Confusion"), DOWN + ENTER),  # the full table: refused
                          (lambda a: "full" in a.note, DOWN + DOWN + ENTER)])
        watched = app.run(browse_lan=False)
    assert watched == ("watch", "03" * 16, "--interface", "lo")
    with create_pipe_input() as pipe:
        app = LobbyApp("lo", "test", pipe, DummyOutput(), tables=tables)
        drive(app, pipe, [(showing("Confusion"), ENTER)])
        assert app.run(browse_lan=False) == ("join", "02" * 16, "--interface", "lo")
    tables.apply(TableAd("removed", *list(ad(2).__dict__.values())[1:]))
    assert not any(row.startswith("Confusion") for row in (r.text for r in tables.rows("lo")))


@pytest.mark.parametrize("key,left", [("\x03", KeyboardInterrupt), ("\x04", EOFError)])
def test_leaving_the_lobby(key: str, left: type[BaseException]) -> None:
    with pytest.raises(left):
        lobby_choice([(showing("Play offline"), key)], interface=None)


@pytest.mark.network  # a real process in a real pseudo-terminal, as the other terminal tests
def test_spycraft_alone_opens_the_lobby_and_ctrl_c_leaves_it_in_one_line(tmp_path) -> None:
    person = Person([], tmp_path / "me", terminal=True, term="xterm")
    try:
        person.wait_for("Play offline against bots", 30)
        person.pause()
        person.type("\x03")
        assert person.finish(20) == 130
    finally:
        person.kill()
    last = one_line_exit(person)
    assert re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", last).strip().endswith(
        "spycraft: left the lobby (Ctrl-C)")
    piped = Person([], tmp_path / "pipe")  # no terminal: the usage, as always
    assert piped.finish(20) == 2
    assert "usage: spycraft" in piped.output()


def test_a_watcher_linked_to_every_seat_is_counted_once() -> None:
    """A host without a seat (or a spectator) links to every seat and each seat's ad counts it:
    a five-seat game with that one watcher reads "1 watching", never "5 watching"."""
    tables = Tables()
    for seat in range(5):
        tables.apply(ad(9, "resistance", {}, 5, 5, watching=1, source=str(seat), opener=None))
    (row,) = [row.text for row in tables.rows("lo")]
    assert "in play, 5 seats · 1 watching" in row, row
