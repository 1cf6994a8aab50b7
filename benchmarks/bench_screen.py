"""Time to draw the full-screen table (a plain script, not a test).

Run: ``.venv/bin/python benchmarks/bench_screen.py [--quick]``. CPU time of the drawing thread
(``thread_time``, so a loaded machine does not inflate it) for prompt-toolkit's render of the
whole screen (``Renderer.render``: the layout plan, every panel set for its width, the
screen diffed and written to a terminal of that size), at each decision of a seeded game of
every game (up to 12 decisions a game), at 80x24, 100x30 and 140x45:

* ``new``: the first draw after a new picture and decision (nothing memoized: what a person
  waits for after a move);
* ``key``: a redraw after an arrow key (the panels memoized: what typing and scrolling cost);
* ``set``: of ``new``, the part that is ours: the plan and every panel's text set for its
  width (``TableApp`` with its memo emptied), without prompt-toolkit's screen and diff.
"""

from __future__ import annotations

import io
import statistics
import sys
import threading
import time
from pathlib import Path

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.picture import Painter
from spycraft.cli.app.table import TableApp
from spycraft.engines.agent import Decision
from tests.cli.seeded_table import seeded

GAMES = (("resistance", 5, ()), ("resistance", 7, ("plot",)), ("shady-agents", 4, ()),
         ("spies-and-lies", 2, ()), ("confusion", 2, ()), ("spynet", 2, ()))
SIZES = ((80, 24), (100, 30), (140, 45))
PER_GAME = 12


def moments(game: str, players: int, given: tuple[str, ...]) -> list[tuple[object, Decision]]:
    definition, local, bots, _ = seeded(game, players, 3, given)
    painter = Painter(definition)
    seat = local.seats[0]
    found: list[tuple[object, Decision]] = []

    class First:
        def decide(self, decision: Decision) -> int:
            found.append((painter.picture(local.state, 0, seat.view(local.state)), decision))
            return 0

    local.run([First(), *bots[1:]])
    step = max(1, len(found) // PER_GAME)
    return found[::step][:PER_GAME]


def measure(game: str, pictures: list[tuple[object, Decision]], width: int,
            height: int) -> tuple[list[float], list[float]]:
    bridge = Bridge(0, tuple(f"p{i}" for i in range(10)))
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=height, columns=width), term="xterm")
    new: list[float] = []
    key: list[float] = []
    own: list[float] = []
    with create_pipe_input() as pipe:
        app = TableApp(bridge, game, pipe, output)
        renders: list[float] = []
        real = app.app.renderer.render

        def timed(*args: object, **kwargs: object) -> None:
            start = time.thread_time()
            real(*args, **kwargs)  # type: ignore[arg-type]
            renders.append(time.thread_time() - start)

        app.app.renderer.render = timed  # type: ignore[method-assign]
        runner = threading.Thread(target=app.run, daemon=True)
        runner.start()
        time.sleep(0.3)
        for picture, decision in pictures:
            asked = threading.Thread(target=_ask, args=(bridge, decision), daemon=True)
            bridge.show(picture)  # type: ignore[arg-type]
            count = len(renders)
            asked.start()
            _settle(renders, count)
            new.append(renders[count])
            app._memo.clear()
            app._plan_key = None
            start = time.thread_time()
            app._replan()
            for panel in (app._pane, app._private, app._question, app._options,
                          app._history_strip, app._status):
                panel()
            own.append(time.thread_time() - start)
            count = len(renders)
            pipe.send_text("\x1b[B")
            _settle(renders, count)
            key.append(renders[count])
            bridge.leave(KeyboardInterrupt)
            asked.join(5)
            bridge.left = None
        app.stop()
        runner.join(10)
    return new, key, own


def _ask(bridge: Bridge, decision: Decision) -> None:
    try:
        bridge.ask(decision)
    except KeyboardInterrupt:
        pass


def _settle(renders: list[float], count: int) -> None:
    deadline = time.monotonic() + 5
    while len(renders) <= count and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.12)  # the redraws this change asks for are done


def main() -> None:
    quick = "--quick" in sys.argv[1:]  # one game at 80x24, two moments (the suite runs it)
    games, sizes = (GAMES[3:4], SIZES[:1]) if quick else (GAMES, SIZES)
    print(f"{'game':24} {'size':8} {'new median':>11} {'new max':>9} {'key median':>11}"
          f" {'key max':>9} {'set median':>11} {'set max':>9}   (ms)")
    for game, players, given in games:
        pictures = moments(game, players, given)[: 2 if quick else PER_GAME]
        name = f"{game}-{players}" + ("-" + "-".join(given) if given else "")
        for width, height in sizes:
            new, key, own = measure(game, pictures, width, height)
            print(f"{name:24} {width}x{height:<5} {statistics.median(new) * 1e3:11.2f} "
                  f"{max(new) * 1e3:9.2f} {statistics.median(key) * 1e3:11.2f} "
                  f"{max(key) * 1e3:9.2f} {statistics.median(own) * 1e3:11.2f} "
                  f"{max(own) * 1e3:9.2f}")


if __name__ == "__main__":
    main()
