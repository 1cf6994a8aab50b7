"""The commands' side of the application: an offline game in it, a LAN session fed to it, and the
closing lines every finished game ends with (the result from your side, the audit verdict, where
the transcript is).

Theory of operation: offline, ``LocalTable.run`` stays in the main thread and posts each record's
picture and history line to the bridge; seat 0 decides through ``AppAgent``. On the LAN the trio
session calls ``LanFeed`` (its ``events``) on its own thread for every record and lobby notice;
the feed paints the picture there (the view models are pure and quick) and posts it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import trio

from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.picture import Painter
from spycraft.cli.app.table import AppAgent, TableApp, Terminal, attached
from spycraft.cli.config import data_dir
from spycraft.cli.outcome import printable, verdict
from spycraft.crypto.transcript import Transcript
from spycraft.engines.agent import Agent
from spycraft.engines.audit import audit
from spycraft.engines.local import LocalTable
from spycraft.engines.registry import GameDefinition
from spycraft.engines.screens import sentence
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Event
from spycraft.p2p.chat import talk_off_reason

PAINT_EVERY = 0.1  # seconds between two pictures of an offline table while the bots play


def closing_lines(definition: GameDefinition, state: TableState[Any], seat: int | None,
                  transcript: Transcript, path: Path | str) -> tuple[str, ...]:
    """What a finished game ends with: the result from ``seat``'s side, the audit of the
    transcript as stored, and where it is."""
    report = audit(transcript.to_bytes())
    first, *rest = report.describe().splitlines()
    verdict_word = first.split(" ")[0]
    return (verdict(definition, state, seat),
            f"audit: {verdict_word} ({first[len(verdict_word) + 1:]})"
            + (f"; {rest[0].strip()}" if rest and verdict_word != "VALID" else ""),
            f"transcript stored in {path}")


def retold(painter: Painter, genesis: Any, records: Sequence[Any]) -> list[Event]:
    """The history of ``records`` from the table's start, as it was told while they came."""
    states = [painter.table.start(genesis)]
    for signed in records:
        states.append(painter.table.apply(states[-1], signed))
    told = (painter.tell(before, signed, after)
            for before, signed, after in zip(states, records, states[1:]))
    return [event for event in told if event is not None]


def store_offline(local: LocalTable) -> Path:
    """Keep a finished offline game's transcript (``<data>/offline/<table>.cbor``)."""
    folder = data_dir() / "offline"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{local.genesis.genesis.table.hex()}.cbor"
    path.write_bytes(local.transcript.to_bytes())
    return path


def play_offline(definition: GameDefinition, local: LocalTable, names: Sequence[str],
                 bots: Sequence[Agent | None], terminal: Terminal | None = None,
                 ask: Callable[[Agent], Agent] = lambda agent: agent,
                 kept: Callable[[], None] = lambda: None, notices: Sequence[str] = (),
                 bridge: Bridge | None = None) -> int:
    """The seats whose bot is None are the person's, in the application (on ``terminal``, an
    (input, output) pair: the real one by default). ``ask`` wraps the person's agent (the
    stored game is brought up to date before each question), ``kept`` runs once the game
    ended. A table that already holds records (a resumed game) starts with their story, and
    ``notices`` (what the command would have printed before) come after it. ``bridge``: the
    caller's own (to read ``again`` from it afterwards)."""
    bridge = bridge or Bridge()
    bridge.seated(bots.index(None) if None in bots else None, tuple(names))
    painter = Painter(definition)
    seat = local.seats[bridge.seat or 0]
    me = bridge.seat
    screen = TableApp(bridge, definition.name, *(terminal or ()))
    with attached(screen):
        bridge.add(*retold(painter, local.genesis, local.records))
        for notice in notices:
            bridge.notice(notice)
        bridge.show(painter.picture(local.state, me, seat.view(local.state)))
        agents = [agent if agent is not None else ask(AppAgent(bridge)) for agent in bots]
        before = [local.state]
        painted = [time.perf_counter()]

        def on_record(signed: Any, state: TableState[Any]) -> None:
            event = painter.tell(before[0], signed, state)
            before[0] = state
            if event is not None:
                bridge.add(event)
            # Bots answer at once: paint when the person can look (their turn, the end, or
            # every tenth of a second of the bots' play), not for every record.
            turn = painter.table.expect(state)
            now = time.perf_counter()
            if turn is None or turn.seat == me or now - painted[0] > PAINT_EVERY:
                painted[0] = now
                bridge.show(painter.picture(state, me, seat.view(state)))

        state = local.run(agents, on_record=on_record)
        kept()
        path = store_offline(local)
        bridge.finish(closing_lines(definition, state, me, local.transcript, path))
    return 0


def talk_panel(definition: GameDefinition, seat: int | None) -> str:
    """What the table-talk panel says while nobody has talked: how this seat talks, why it
    cannot (a game whose talk is off while it runs), or that a spectator only listens."""
    if seat is None:  # a spectator, or a host without a seat
        return "Table talk: the seats' lines appear here (without a seat you listen, and say " \
            "nothing)"
    if not definition.talk_open(finished=False):
        return sentence(talk_off_reason(definition.name))
    return "Table talk: /say TEXT and Enter at the decision, or Tab, type and Enter; Tab " \
        "comes back"


def table_turn_timeout(session: Any) -> float:
    """The table's turn timeout, the one every seat holds to: the genesis's (every seat signed
    it), else the one our peer protocol enforces; never this command's own default."""
    fixed = getattr(session.genesis.genesis, "turn_timeout", None)
    if isinstance(fixed, int | float) and not isinstance(fixed, bool) and fixed > 0:
        return float(fixed)
    return float(session.protocol.config.turn_timeout)


class LanFeed:
    """A trio session's events for the application (``Session.events``), on the trio thread."""

    def __init__(self, bridge: Bridge, definition: GameDefinition) -> None:
        self.bridge = bridge
        self.definition = definition
        self.painter = Painter(definition)
        self.session: Any = None
        self.turn_timeout = 0.0  # the table's (``table_turn_timeout``), once attached
        self._offset = 0.0  # trio's clock minus perf_counter, for the turn timer
        self._token: trio.lowlevel.TrioToken | None = None

    def attach(self, session: Any) -> None:
        """The session exists (the table is full): name the seats, draw the table, and read the
        connections and the turn timer from it from now on."""
        self.session = session
        self.turn_timeout = table_turn_timeout(session)
        self._offset = trio.current_time() - time.perf_counter()
        names = tuple(seat.name for seat in session.genesis.genesis.seats)
        self.bridge.seated(session.seat, names)
        self.bridge.status = self.status
        self.bridge.clock = self.time_left
        self.bridge.talk = talk_panel(self.definition, session.seat)
        if session.seat is not None and callable(getattr(session, "say", None)) \
                and self.definition.talk_open(finished=session.finished):
            self.bridge.say = self._say
        self._token = trio.lowlevel.current_trio_token()
        self._retell(session)
        self._paint(session.state)

    def _retell(self, session: Any) -> None:
        """The history of the records the session already holds (``resume`` rebuilt them from
        the stored transcript): told as they were when they came, before any new one."""
        states = session.protocol.states
        told = (self.painter.tell(before, signed, after)
                for before, signed, after in zip(states, session.records, states[1:]))
        self.bridge.add(*(event for event in told if event is not None))

    def _paint(self, state: TableState[Any]) -> None:
        session = self.session
        view = session.table_seat.view(state) if session.table_seat is not None else None
        self.bridge.show(self.painter.picture(state, session.seat, view))

    def __call__(self, kind: str, data: Any) -> None:
        bridge = self.bridge
        if kind == "record":
            before, signed, after = data
            event = self.painter.tell(before, signed, after)
            if event is not None:
                bridge.add(event)
            if self.session is not None:
                self._paint(after)
        elif kind == "joined":
            bridge.notice(f"{printable(data.name)} [{data.fingerprint}] sat down")
        elif kind == "left":
            bridge.notice(f"{printable(data.name)} [{data.fingerprint}] left before the game "
                          f"started")
        elif kind == "lobby":
            bridge.notice(f"waiting for players: {data[0]}/{data[1]} seated")
        elif kind in ("fraud", "equivocation"):
            bridge.notice(f"a seat cheated ({kind}): {data}", tone="bad")
        elif kind == "chat":
            bridge.chat(data.describe())
        elif kind == "muted":  # a speaker over its bucket, or talking while talk is off
            bridge.chat(f"-- seat {data[0]} {printable(data[1])}")
        elif kind == "closed":  # a spectator's link to a seat that sent what does not check
            who, reason = data
            bridge.notice(f"{printable(str(who))} sent what does not check "
                          f"({printable(str(reason))}); its link is closed", tone="bad")
        elif kind == "stuck":
            bridge.notice(f"we cannot write our next record: {data}", tone="bad")
        elif kind in ("absent", "alone", "unconfirmed"):  # declared absent; nobody linked; a claim
            bridge.notice(data, tone="bad")
        elif kind == "waiting":  # a seatless host after the result, for a claim's accused
            bridge.notice(data)

    def _say(self, text: str) -> str | None:
        """Say ``text`` at the table from the application's thread (the session is trio's);
        why it was refused, or None."""
        try:
            trio.from_thread.run_sync(self.session.say, text, trio_token=self._token)
        except trio.RunFinishedError:
            return "the table has closed"
        except Exception as refused:  # noqa: BLE001 (p2p.chat.ChatRefused: said in one line)
            return str(refused)
        return None

    def status(self) -> str:
        """Seats connected (any thread)."""
        session = self.session
        if session is None:
            return ""
        try:
            links = [link for link in list(session.links.values())
                     if link.seat is not None and not link.closed]
        except RuntimeError:  # the links changed while we read them: next second
            return ""
        seats = len(session.genesis.genesis.seats)
        here = len(links) + (1 if session.seat is not None else 0)
        return f"{here}/{seats} seats connected"

    def time_left(self) -> float | None:
        """The seconds the seat whose turn it is has left on the table's turn timer, or None
        once the game is over (any thread; the application shows it and warns)."""
        session = self.session
        if session is None or session.finished:
            return None
        now = time.perf_counter() + self._offset
        return float(session.protocol.since + self.turn_timeout - now)


class LanUi:
    """The application around one LAN command (``play``, ``host``, ``join``, ``resume``): the
    person's agent, the session's events, the table once seated, the closing lines."""

    def __init__(self, terminal: Terminal | None = None, again: bool = False) -> None:
        """``again``: the final screen offers to play the same game again."""
        self.bridge = Bridge()
        self.bridge.again_offered = again
        self.app = TableApp(self.bridge, None, *(terminal or ()))
        self.feed: LanFeed | None = None

    def agent(self) -> Agent:
        return AppAgent(self.bridge)

    def events(self, definition: GameDefinition) -> LanFeed:
        """The session's ``events`` (the game is known from here on)."""
        self.app.game = definition.name
        self.feed = LanFeed(self.bridge, definition)
        return self.feed

    def attach(self, session: Any) -> None:
        if self.feed is None:
            self.events(session.definition)
        assert self.feed is not None
        self.feed.attach(session)

    def finish(self, session: Any) -> None:
        """The game is over (or ended unfinished): the final screen's lines."""
        if session.state.result is None:
            return  # the command's own lines say why; they are printed when the screen closes
        self.bridge.finish(closing_lines(session.definition, session.state, session.seat,
                                         session.transcript, session.store.transcript_path))


@contextlib.contextmanager
def lan_ui(wanted: bool, again: bool = False,
           terminal: Terminal | None = None) -> Iterator[LanUi | None]:
    """The application for a LAN command when ``wanted`` (a person at a terminal), else None
    (the line mode); ``again``: its final screen offers to play again."""
    if not wanted:
        yield None
        return
    ui = LanUi(terminal, again)
    with attached(ui.app):
        yield ui
