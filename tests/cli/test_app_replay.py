"""``replay`` in the full-screen table, driven through a pipe: stepping forward and back by a
line and by a round, jumping to a round, and every seat's hindsight view, for every game."""

from __future__ import annotations

import threading
import time

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from spycraft.cli.app import picture as draw
from spycraft.cli.app.replay import ReplayApp
from spycraft.cli.offline import _page_of
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.local import new_local_table
from tests.cli.test_app import PLAYERS


def finished(game: str):
    definition = registry.load(game)
    players = PLAYERS[game]
    entropy = SeededEntropy(3)
    local = new_local_table(definition, definition.genesis_options(players), players,
                            entropy.child("table"))
    agents = [definition.bots["random"](entropy.child(f"bot{i}"), i) for i in range(players)]
    states = [local.state]
    local.run(agents, on_record=lambda signed, state: states.append(state))
    return definition, states, local.records, [s.name for s in local.genesis.genesis.seats]


def drive(replay: ReplayApp, pipe, steps: list[tuple[str, object]]) -> list[object]:
    """Type each key, then wait until the application took it; what ``look`` saw each time."""
    seen: list[object] = []

    def person() -> None:
        deadline = time.monotonic() + 10
        while replay.app.render_counter == 0 and time.monotonic() < deadline:
            time.sleep(0.005)  # the first picture is on the screen
        time.sleep(0.05)
        for keys, look in steps:
            before = replay.app.render_counter
            pipe.send_text(keys)
            deadline = time.monotonic() + 10
            while replay.app.render_counter == before and time.monotonic() < deadline:
                time.sleep(0.005)
            seen.append(look() if callable(look) else None)
        pipe.send_text("q")

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    replay.run()
    thread.join(10)
    return seen


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_replay_steps_by_line_and_round_and_shows_each_seats_hindsight(game):
    definition, states, records, names = finished(game)
    with create_pipe_input() as pipe:
        replay = ReplayApp(definition, states, records, names, _page_of,
                           terminal=(pipe, DummyOutput()))
        first_event = replay.events[0][0]
        steps: list[tuple[str, object]] = [
            ("\x1b[C", lambda: replay.position),  # right: the first line of history
            ("\x1b[D", lambda: replay.position),  # left: back to the start
            ("\x1b[6~", lambda: replay.position),  # PgDn: the next round
            ("\x1b[F", lambda: replay.position),  # End
        ]
        for seat in range(len(names)):  # Tab: seat 0, 1, ... each with its own picture
            steps.append(("\t", lambda: (replay.viewer, draw.plain(
                draw.board(replay.picture()) + draw.private(replay.picture())))))
        steps.append(("\t", lambda: replay.viewer))  # back to the public picture
        seen = drive(replay, pipe, steps)
    assert seen[0] == first_event
    assert seen[1] == 0
    turn = next((i for i, page in enumerate(replay.pages) if page != replay.pages[0]),
                len(states) - 1)
    assert seen[2] == turn  # PgDn: where the next round starts (the end if there is none)
    assert seen[3] == len(states) - 1
    for seat, (viewer, text) in enumerate(seen[4:-1]):
        assert viewer == seat and text
    assert seen[-1] is None
    assert replay.picture().ended


def test_replay_jumps_to_a_typed_round():
    definition, states, records, names = finished("resistance")
    with create_pipe_input() as pipe:
        replay = ReplayApp(definition, states, records, names, _page_of,
                           terminal=(pipe, DummyOutput()))
        seen = drive(replay, pipe, [("3", None), ("\r", lambda: replay.position)])
    assert replay._number(seen[1]) == 3
    assert replay._number(seen[1] - 1) != 3
