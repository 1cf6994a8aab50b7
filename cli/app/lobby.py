"""The lobby: ``spycraft`` alone, in a terminal. The tables on the LAN, live, and what to do.

Theory of operation
-------------------
``Tables`` holds what the browse has seen (``p2p.discovery.browse_tables``, the same browse as
``spycraft tables`` and ``join``): the ads of open tables, and of games in play (one ad per seat,
gathered per table; a watcher links to every seat, so the table's count is the most any of
its seats counts). The browse runs under trio in a thread of its
own (``Browse``) and posts each ad into ``Tables``, which asks the application to redraw. Ads
come from strangers: the discovery layer already dropped any that does not parse or whose options
do not hash to its digest; what is left is shown through ``printable``.

``LobbyApp`` is a prompt-toolkit application with one list at a time: the lobby's rows (each
table, then "open a new table" and "play offline against bots"), or one question of the new
table's form (game, number of players, each option of ``GameDefinition.flags``, for a LAN
table how many seats bots take, and how strong the bots play: ``engines.bots.offered``).
Arrows move, Enter takes, Esc goes back a question, Ctrl-C or Ctrl-D leave. Its result is a
command line (``Choice.argv``): the lobby decides nothing more, ``cli.main`` runs that command
exactly as if it had been typed (``join TABLE``, ``watch TABLE``, ``play GAME ...`` or ``play
GAME --offline ...``), so there is one path for each action.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from spycraft.cli.app import picture as draw
from spycraft.cli.app.table import CURSOR
from spycraft.crypto.text import printable
from spycraft.engines import bots, registry
from spycraft.p2p.discovery import DiscoveryError, TableAd, browse_tables

OptionPairs = Sequence[tuple[str, bool | str | int]]


def describe_options(options: OptionPairs) -> str:
    """Options as a person reads them: ``plot, first red`` (a "no" is left out)."""
    words = [name.replace("_", " ") + ("" if value is True else f" {value}")
             for name, value in options if value is not False]
    return ", ".join(words) or "no options"


def game_title(game: str) -> str:
    try:
        return registry.about(game).title  # without importing the engine
    except KeyError:
        return f"{game} (a game this copy does not know)"


@dataclass(frozen=True)
class Row:
    """One line of the lobby: what it says, and the command Enter runs (None: why not)."""

    text: str
    argv: tuple[str, ...] | None
    why_not: str = ""
    action: str = ""  # "new" or "offline": Enter opens the form instead of a command


class Tables:
    """The ads seen so far, safe to read from the application's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ads: dict[str, TableAd] = {}
        self.changed: Callable[[], None] = lambda: None
        self.trouble = ""  # why the browse stopped, if it did

    def apply(self, ad: TableAd) -> None:
        with self._lock:
            if ad.change == "removed":
                self._ads.pop(ad.name, None)
            else:
                self._ads[ad.name] = ad
        self.changed()

    def failed(self, why: str) -> None:
        with self._lock:
            self.trouble = why
        self.changed()

    def rows(self, interface: str) -> list[Row]:
        """Open tables first (the games this copy knows first, by game, then table id), then
        games in play with how many watch them."""
        with self._lock:
            ads = list(self._ads.values())
        where = ("--interface", interface)
        rows = []
        known = registry.game_names()
        for ad in sorted((a for a in ads if a.watching is None),
                         key=lambda a: (a.game not in known, a.game, a.table_id)):
            table = ad.table_id.hex()
            opener = f"{printable(ad.opener)} " if ad.opener else ""
            text = (f"{game_title(ad.game)} · {describe_options(ad.options)} · "
                    f"{ad.seats_taken}/{ad.seats_total} seats · opened by {opener}"
                    f"[{ad.fingerprint}] · {table[:8]}")
            if ad.game not in registry.game_names():
                rows.append(Row(text, None, "this copy of spycraft does not know the game"))
            elif ad.seats_taken >= ad.seats_total:
                rows.append(Row(text, None, "the table is full"))
            else:
                rows.append(Row(text, ("join", table, *where)))
        playing: dict[bytes, list[TableAd]] = {}
        for ad in ads:
            if ad.watching is not None:
                playing.setdefault(ad.table_id, []).append(ad)
        for table_id, seats in sorted(playing.items(), key=lambda kv: (kv[1][0].game, kv[0])):
            ad = seats[0]
            # A watcher (a spectator, a host without a seat) links to every seat, and each of
            # them counts it: the most any seat counts is how many watch, not their sum.
            watching = max(s.watching or 0 for s in seats)
            text = (f"{game_title(ad.game)} · {describe_options(ad.options)} · in play, "
                    f"{ad.seats_total} seats · {watching} watching · {table_id.hex()[:8]}")
            rows.append(Row(text, ("watch", table_id.hex(), *where)))
        return rows


class Browse:
    """``browse_tables`` under trio in its own thread, feeding ``Tables`` until ``stop``."""

    def __init__(self, interface: str, tables: Tables) -> None:
        self.interface = interface
        self.tables = tables
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._stopped = False
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="spycraft-lobby-browse",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        try:
            trio.run(self._browse)
        except (DiscoveryError, OSError) as exc:
            self.tables.failed(f"cannot look for tables on {self.interface}: {exc}")
        except Exception as exc:  # noqa: BLE001 (the lobby goes on, saying why)
            self.tables.failed(f"the search for tables stopped: {exc!r}")

    async def _browse(self) -> None:
        with trio.CancelScope() as scope:
            with self._lock:
                self._token, self._scope = trio.lowlevel.current_trio_token(), scope
                if self._stopped:
                    return
            async with browse_tables(self.interface) as ads:
                async for ad in ads:
                    self.tables.apply(ad)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            token, scope = self._token, self._scope
        if token is not None and scope is not None:
            try:
                token.run_sync_soon(scope.cancel)
            except trio.RunFinishedError:
                pass
        self.thread.join(10)


@dataclass(frozen=True)
class Question:
    """One question of the new table's form: its answers' labels and the values they stand
    for (a value of None: a "yes/no" option's no)."""

    key: str
    text: str
    labels: tuple[str, ...]
    values: tuple[str, ...]


class Form:
    """A new table's form: the answers so far decide the next question; None when done."""

    def __init__(self, offline: bool) -> None:
        self.offline = offline
        self.answers: dict[str, str] = {}

    def next(self) -> Question | None:
        got = self.answers
        if "game" not in got:
            names = registry.game_names()
            return Question("game", "Which game?", tuple(registry.load(n).title for n in names),
                            names)
        definition = registry.load(got["game"])
        if "players" not in got:
            counts = tuple(str(n) for n in definition.rules.seat_counts)
            return Question("players", "How many players?", tuple(f"{n} players" for n in counts),
                            counts)
        for option in definition.flags:
            key = f"option:{option.name}"
            if key in got:
                continue
            what = f"{option.name.replace('_', ' ')}: {option.help}"
            if option.choices:
                first = option.default if option.default in option.choices else None
                choices = ((first,) if first else ()) + tuple(
                    c for c in option.choices if c != first)
                return Question(key, what, choices, choices)
            return Question(key, what, ("no", "yes"), ("no", "yes"))
        if not self.offline and "bots" not in got:
            players = int(got["players"])
            counts = tuple(str(n) for n in range(players))
            return Question("bots", "How many seats do bots take (on this machine)?",
                            tuple(f"{n} bot{'s' if n != '1' else ''}" for n in counts), counts)
        levels = level_choices(definition)
        if "level" not in got and len(levels) > 1 and (self.offline or got["bots"] != "0"):
            return Question("level", "How strong do the bots play?",
                            tuple(f"{level}: {LEVEL_WORDS[level]}" for level in levels), levels)
        return None

    def back(self) -> bool:
        """Forget the last answer; False when there was none (the form is left)."""
        if not self.answers:
            return False
        self.answers.pop(next(reversed(self.answers)))
        return True

    def argv(self, interface: str | None) -> tuple[str, ...]:
        """The command the answers stand for."""
        got = self.answers
        definition = registry.load(got["game"])
        argv = ["play", definition.name, "--players", got["players"]]
        for option in definition.flags:
            value = got[f"option:{option.name}"]
            if option.choices:
                argv += [option.flag, value]
            elif value == "yes":
                argv.append(option.flag)
        if self.offline:
            argv.append("--offline")
        else:
            argv += ["--bots", got["bots"]]
        if got.get("level", bots.DEFAULT) != bots.DEFAULT:
            argv += ["--level", got["level"]]
        if not self.offline and interface is not None:
            argv += ["--interface", interface]
        return tuple(argv)


LEVEL_WORDS = {
    bots.EASY: "a beginner, with habits you can learn to exploit",
    bots.NORMAL: "a sound, steady player",
    bots.EXPERT: "reasons over everything the table has shown",
}


def level_choices(definition: registry.GameDefinition) -> tuple[str, ...]:
    """The game's bot levels, the default first (Enter takes it)."""
    levels = bots.offered(definition.bots)
    return tuple(sorted(levels, key=lambda level: level != bots.DEFAULT))


NEW_TABLE = Row("Open a new table on the LAN…", None, action="new")
OFFLINE = Row("Play offline against bots…", None, action="offline")


class LobbyApp:
    """The lobby on a terminal (tests: a pipe and a dummy output). ``run`` returns the command
    line chosen, or raises ``KeyboardInterrupt`` (Ctrl-C) or ``EOFError`` (Ctrl-D)."""

    def __init__(self, interface: str | None, where: str, input: Input | None = None,
                 output: Output | None = None, tables: Tables | None = None) -> None:
        self.interface = interface
        self.where = where  # which interface and why, or why there is none
        self.tables = tables or Tables()
        self.form: Form | None = None
        self.cursor = 0
        self.note = ""
        self.chosen: tuple[str, ...] | None = None
        self.left: type[BaseException] | None = None
        self.list_window = Window(FormattedTextControl(self._list), wrap_lines=False,
                                  height=Dimension(min=3, weight=1))
        self.app: Application[None] = Application(
            layout=Layout(HSplit([
                Window(FormattedTextControl(self._header), height=Dimension(min=1, max=3),
                       wrap_lines=True),
                Frame(self.list_window, title=lambda: self._title()),
                Window(FormattedTextControl(self._footer), height=Dimension(min=1, max=3),
                       wrap_lines=True),
                Window(FormattedTextControl(self._status), height=1, style="class:status"),
            ])),
            key_bindings=self._keys(), full_screen=True, style=Style.from_dict(draw.STYLE),
            input=input, output=output, min_redraw_interval=0.05, refresh_interval=1.0)
        self.tables.changed = self._changed

    # --- what is shown ------------------------------------------------------------------------

    def rows(self) -> list[Row]:
        tables = self.tables.rows(self.interface) if self.interface is not None else []
        return [*tables, *((NEW_TABLE,) if self.interface is not None else ()), OFFLINE]

    def question(self) -> Question | None:
        return self.form.next() if self.form is not None else None

    def labels(self) -> list[str]:
        question = self.question()
        if question is not None:
            return list(question.labels)
        return [row.text for row in self.rows()]

    def _title(self) -> str:
        if self.form is not None:
            return "A new table" + (" (offline)" if self.form.offline else "")
        return "Tables on the LAN"

    def _header(self) -> StyleAndTextTuples:
        question = self.question()
        if question is not None:
            done = ", ".join(f"{k.removeprefix('option:')} {v}"
                             for k, v in self.form.answers.items()) if self.form else ""
            return [("class:label", question.text + "\n"), ("class:hint", done)]
        tagline = "  spy board games on the LAN, no server, nobody trusted\n"
        return [("class:title", "spycraft"), ("", tagline), ("class:hint", self.where)]

    def _list(self) -> StyleAndTextTuples:
        labels = self.labels()
        self.cursor = max(0, min(self.cursor, len(labels) - 1))
        out: StyleAndTextTuples = []
        if self.form is None and self.interface is not None and len(labels) == 2:
            out.append(("class:hint", "  (no table on the LAN yet; new ones appear here)\n"))
        for index, label in enumerate(labels):
            if index == self.cursor:
                out += [(CURSOR, ""), ("class:chosen", f"▸ {label}"), ("", "\n")]
            else:
                out.append(("", f"  {label}\n"))
        return out

    def _footer(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        if self.note:
            out.append(("class:tone.bad", self.note + "\n"))
        if self.tables.trouble:
            out.append(("class:tone.bad", self.tables.trouble))
        return out

    def _status(self) -> StyleAndTextTuples:
        keys = ("↑↓ choose · Enter takes it · Esc back · Ctrl-C leave" if self.form is not None
                else "↑↓ choose · Enter: join, watch or open · Ctrl-C leave")
        return [("class:status", f" {keys} ")]

    # --- keys ---------------------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("c-c", eager=True)
        def _(event: KeyPressEvent) -> None:
            self.left = KeyboardInterrupt
            self.app.exit()

        @kb.add("c-d", eager=True)
        def _(event: KeyPressEvent) -> None:
            self.left = EOFError
            self.app.exit()

        @kb.add("up")
        def _(event: KeyPressEvent) -> None:
            self.cursor = max(0, self.cursor - 1)

        @kb.add("down")
        def _(event: KeyPressEvent) -> None:
            self.cursor = min(len(self.labels()) - 1, self.cursor + 1)

        @kb.add("escape", eager=True)
        def _(event: KeyPressEvent) -> None:
            self.note = ""
            if self.form is not None and not self.form.back():
                self.form = None
            self.cursor = 0

        @kb.add("enter")
        def _(event: KeyPressEvent) -> None:
            self.take()

        return kb

    def take(self) -> None:
        """Enter: answer the form's question, or act on the highlighted row."""
        self.note = ""
        if self.form is not None:
            question = self.form.next()
            if question is None:
                return
            self.form.answers[question.key] = question.values[self.cursor]
            self.cursor = 0
            if self.form.next() is None:
                self.chosen = self.form.argv(self.interface)
                self.app.exit()
            return
        rows = self.rows()
        if not rows:
            return
        row = rows[min(self.cursor, len(rows) - 1)]
        if row.action:
            self.form = Form(offline=row.action == "offline")
            self.cursor = 0
        elif row.argv is None:
            self.note = f"cannot join: {row.why_not}"
        else:
            self.chosen = row.argv
            self.app.exit()

    def _changed(self) -> None:
        loop = self.app.loop
        if loop is not None and self.app.is_running:
            try:
                loop.call_soon_threadsafe(self.app.invalidate)
            except RuntimeError:
                pass

    # --- running ------------------------------------------------------------------------------

    def run(self, browse_lan: bool = True) -> tuple[str, ...]:
        """Show the lobby (browsing when there is an interface, unless ``browse_lan`` is False:
        the tables are given) until something is chosen."""
        browse = (Browse(self.interface, self.tables)
                  if self.interface is not None and browse_lan else None)
        if browse is not None:
            browse.start()
        try:
            self.app.run(handle_sigint=False, set_exception_handler=False)
        finally:
            if browse is not None:
                browse.stop()
        if self.chosen is None:
            raise (self.left or KeyboardInterrupt)()
        return self.chosen


def where_to_browse() -> tuple[str | None, str]:
    """The interface the lobby browses and opens tables on (as the LAN commands choose it),
    and a line that says which, or why there is none."""
    from spycraft.p2p.discovery import default_interface

    try:
        choice = default_interface()
    except DiscoveryError as exc:
        return None, f"no LAN table can be opened or found: {exc}; offline play works"
    name = choice.interface.name
    return name, f"on {choice.interface.label} ({choice.interface.address}): {choice.reason}"
