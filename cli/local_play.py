"""``spycraft play --offline``: a human seat and bot seats in one process, no network.

Theory of operation: one ``LocalTable`` runs every seat; seat 0 asks the person, the others are bots
of the level asked for (``--level``, ``cli.levels``; normal by default), each seat named with its
level (``bot 2 (expert)``). In a terminal the person plays in the full-screen application
(``cli.app``); piped or with ``--line``, at the line prompt (``cli.tui``), where each record is told
as the game's narration. The end says the result from the person's side; a finished game's
transcript is stored (``<data>/offline/``) so it can be audited and replayed.

Kept like a LAN game (``OfflineGame``): every secret of the table comes from one 32-byte seed
(``SeededEntropy``), so the seed, the options and the names rebuild the same genesis and the same
seats. The game's folder ``<data>/games/<table>-offline`` holds ``transcript.cbor`` and, mode 0600,
``seat.cbor``: the seed as the master secret, every seat's memo of private choices, the options and
the bots' levels. Both are brought up to date whenever the person is asked (so leaving with Ctrl-C
or the end of input loses nothing) and at the end. ``spycraft resume`` lists the folder with the LAN
games and continues it here: the stored records are checked again by the engine, the memos restored,
fresh bots of the same levels take the bot seats, and the history shows the story so far.

"Play again" on the final screen starts a new offline game with the same options, names and levels.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from spycraft.cli import app
from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.run import play_offline, store_offline
from spycraft.cli.app.table import Terminal
from spycraft.cli.config import data_dir, player_name
from spycraft.cli.levels import levels_for
from spycraft.cli.lines import Lines, wrapped
from spycraft.cli.offline import game_options, players_of
from spycraft.cli.outcome import roster, verdict
from spycraft.cli.tui import TerminalAgent
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import SpycraftError
from spycraft.engines import bots as bot_levels
from spycraft.engines import registry
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.storage import GameStore, SeatFile

OFFLINE = "offline"  # the interface an offline game's seat file names, and its folder's suffix
PERSON = 0  # the person's seat at an offline table


class OfflineGame:
    """An offline table and the folder that keeps it (module docstring)."""

    def __init__(self, local: LocalTable[Any, Any], store: GameStore, seat_file: SeatFile
                 ) -> None:
        self.local = local
        self.store = store
        self.seat_file = seat_file
        self.saved = len(local.records)  # records already in the stored transcript

    @classmethod
    def new(cls, definition: registry.GameDefinition, options: dict[str, Any],
            names: Sequence[str], levels: Sequence[str] | None = None,
            effort: int = 1) -> OfflineGame:
        """``levels``: each seat's bot level (the person's seat ``person``; by default every
        bot seat normal)."""
        if levels is None:
            levels = [PERSON_LEVEL if i == PERSON else bot_levels.DEFAULT
                      for i in range(len(names))]
        seed = SystemEntropy().take(32)
        local = new_local_table(definition, options, len(names), SeededEntropy(seed), names)
        table = local.genesis.genesis.table
        store = GameStore(data_dir() / "games" / f"{table.hex()}-{OFFLINE}")
        store.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        seat_file = SeatFile(game=definition.name, table=table, seat=PERSON, master=seed,
                             memo={}, roster=[], interface=OFFLINE,
                             extra={"offline": True, "options": dict(options),
                                    "names": list(names), "levels": list(levels),
                                    "effort": effort})
        store.write_genesis(local.genesis)
        game = cls(local, store, seat_file)
        game.save()
        return game

    @classmethod
    def resume(cls, store: GameStore) -> OfflineGame:
        """The stored game, rebuilt from its seed and replayed through the engine (a record
        that does not check is an error: the folder was changed)."""
        seat_file = store.load_seat()
        definition = registry.load(seat_file.game)
        names = [str(n) for n in seat_file.extra["names"]]
        local = new_local_table(definition, dict(seat_file.extra["options"]), len(names),
                                SeededEntropy(seat_file.master), names)
        transcript = store.load_transcript()
        if transcript is None or transcript.genesis.raw != local.genesis.raw:
            raise SpycraftError(f"{store.folder} holds another table's transcript")
        for signed in transcript.records:
            local.state = local.table.apply(local.state, signed)
            local.records.append(signed)
        for index, seat in enumerate(local.seats):
            prefix = f"{index}/"
            seat.memo.update({key[len(prefix):]: value for key, value in seat_file.memo.items()
                              if key.startswith(prefix)})
        return cls(local, store, seat_file)

    @property
    def name(self) -> str:
        return self.store.folder.name

    def save(self) -> None:
        """Every seat's memo, then the records not yet stored: a record is never kept without
        the private choices it commits to (a full disk that took the memo's write after the
        records' left a seat that could not open its own deployment, and the resume failed);
        a memo ahead of the records asks nothing again at those places (each choice is asked
        once), so the seats build the same records. The seat file says the game is finished
        only once its last records are stored."""
        fresh = self.local.records[self.saved:]
        finished = self.local.state.result is not None
        self.seat_file.memo = {f"{i}/{key}": value for i, seat in enumerate(self.local.seats)
                               for key, value in seat.memo.items()}
        self.seat_file.finished = finished and not fresh
        self.store.save_seat(self.seat_file)
        if fresh:
            self.store.append(*fresh)
            self.saved = len(self.local.records)
            if finished:
                self.seat_file.finished = True
                self.store.save_seat(self.seat_file)


class Saving:
    """The person's agent, which brings the stored game up to date before each question."""

    def __init__(self, agent: Agent, save: Callable[[], None]) -> None:
        self.agent = agent
        self.save = save

    def decide(self, decision: Decision) -> int:
        self.save()
        return self.agent.decide(decision)


def play(args: argparse.Namespace, terminal: Terminal | None = None) -> int:
    """A new offline game; "play again" on its final screen starts another with the same
    options and names, until the person closes the screen."""
    definition = registry.load(args.game)
    options = game_options(definition, args)
    players = players_of(args, definition)
    chosen = levels_for(args, definition, players - 1, "play")
    levels = [*chosen[:PERSON], PERSON_LEVEL, *chosen[PERSON:]]
    names = [bot_levels.seat_name(i, level) for i, level in enumerate(levels)]
    names[PERSON] = (args.name or player_name())[:64]
    while True:
        code, again = run(OfflineGame.new(definition, options, names, levels, args.effort), args,
                          terminal=terminal)
        if not again:
            return code


def resume(store: GameStore, args: argparse.Namespace) -> int:
    """``spycraft resume`` of an offline game."""
    try:
        game = OfflineGame.resume(store)
    except (OSError, SpycraftError, KeyError, ValueError, TypeError) as exc:
        print(f"spycraft resume: {store.folder.name} cannot be resumed: {exc}", file=sys.stderr)
        return 1
    definition = game.local.definition
    code, again = run(game, args, f"resuming offline game {game.name} at record "
                                  f"{game.local.state.seq}")
    while again:  # the same options and names
        options = dict(game.seat_file.extra["options"])
        names = [seat.name for seat in game.local.genesis.genesis.seats]
        code, again = run(OfflineGame.new(definition, options, names, stored_levels(game),
                                          stored_effort(game)), args)
    return code


def run(game: OfflineGame, args: argparse.Namespace, notice: str = "",
        terminal: Terminal | None = None) -> tuple[int, bool]:
    """Play ``game`` to its end, the person at seat 0 and bots of its levels at the others;
    ``notice``: a first line for the person (in the application's history when it runs). The
    exit code, and whether the person chose "play again" on the final screen."""
    local = game.local
    definition = local.definition
    args.stored = game.name  # leaving says how to resume it (``cli.main.left``)
    names = [seat.name for seat in local.genesis.genesis.seats]
    entropy = SystemEntropy()
    levels, effort = stored_levels(game), stored_effort(game)
    bots: list[Agent | None] = [
        None if i == PERSON else bot_levels.make(definition.bots, levels[i],
                                                 entropy.child(f"bot/{i}"), i, effort)
        for i in range(len(names))]
    if terminal is not None or app.wanted(args):
        bridge = Bridge()
        bridge.again_offered = True
        code = play_offline(definition, local, names, bots, terminal,
                            ask=lambda agent: Saving(agent, game.save), kept=game.save,
                            notices=(notice,) if notice else (), bridge=bridge)
        return code, bridge.again
    if notice:
        print(notice, flush=True)
    lines = Lines(definition)
    human = Saving(TerminalAgent(lambda: lines.board(
        local.state, PERSON, local.seats[PERSON].view(local.state))), game.save)
    agents: list[Agent] = [human if agent is None else agent for agent in bots]
    print(wrapped(f"{definition.title}: you are seat {PERSON}."))
    print(wrapped(roster(names, PERSON)))
    before = [local.state]  # the table before the record being told

    def tell(signed: Any, state: Any) -> None:
        line = lines.history(before[0], signed, state, indent="  ")
        before[0] = state
        if line:
            print(line)

    state = local.run(agents, on_record=tell)
    game.save()
    print(lines.board(state, PERSON, local.seats[PERSON].view(state)))
    print(f"transcript stored in {store_offline(local)}")
    print(wrapped(verdict(definition, state, PERSON)))
    return 0, False


PERSON_LEVEL = "person"  # the person's seat in a stored list of levels


def stored_levels(game: OfflineGame) -> list[str]:
    """Each seat's bot level as the game was started (a game stored before levels, or with a
    level this version does not have: normal)."""
    names = game.local.genesis.genesis.seats
    stored = game.seat_file.extra.get("levels")
    bots = game.local.definition.bots
    levels = [str(level) for level in stored] if isinstance(stored, list) else []
    if len(levels) != len(names):
        levels = [bot_levels.DEFAULT] * len(names)
    return [level if level in bots or i == PERSON else bot_levels.DEFAULT
            for i, level in enumerate(levels)]


def stored_effort(game: OfflineGame) -> int:
    effort = game.seat_file.extra.get("effort", 1)
    return effort if isinstance(effort, int) and not isinstance(effort, bool) and effort >= 1 \
        else 1


def offline_store(store: GameStore) -> bool:
    """Whether a stored game is an offline one (``spycraft resume`` continues it here)."""
    try:
        return bool(store.load_seat().extra.get("offline"))
    except (OSError, SpycraftError, ValueError, KeyError, TypeError):
        return False


__all__ = ["OFFLINE", "OfflineGame", "offline_store", "play", "resume", "run"]
