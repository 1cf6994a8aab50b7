"""What one SpyNet seat sees, as a text picture.

``SeatView`` is the public protocol state plus what this seat knows privately (its seat builds
it from its secrets): the faces of its hand, of the pile cards it has looked at (None where it
has not), of its own face-down missions and of the draft cards it holds. Bots and the terminal
UI read it. ``render`` draws the public state (and that knowledge, for its own seat); the history
is told by ``screen.story`` (in the line mode too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.cards import BRANCHES, CARDS, Branch
from spycraft.engines.spynet.scoring import agent_power, dominators, power


@dataclass(frozen=True)
class SeatView:
    state: Any  # protocol.State
    seat: int
    hand: tuple[tuple[int, str], ...]  # (position, face)
    piles: tuple[tuple[str | None, ...], ...]  # per pile, the faces this seat has seen
    missions: tuple[tuple[Branch, str], ...]  # own face-down missions
    draft: tuple[tuple[int, str], ...]

    @property
    def game(self) -> M.Game | None:
        game: M.Game | None = self.state.game
        return game

    def face_of(self, position: int) -> str:
        return next((f for p, f in self.hand + self.draft if p == position), "?")


def _name(face: str) -> str:
    """A card's id and name; a card this seat cannot read is shown as such."""
    if face not in CARDS:
        return "an unreadable card"
    return f"{face} {CARDS[face].name}"


def _tableau(game: M.Game, seat: int, open_missions: bool) -> list[str]:
    board = game.board
    tableau = board.tableaux[seat]
    lines = []
    for branch, stack, pile in zip(BRANCHES, tableau.stacks, game.missions[seat]):
        agents = " ".join(
            a.card + "".join(f"+{f}" for f in a.funding)
            + f"({agent_power(a, board.situation)})"
            for a in stack
        )
        missions = " ".join(m.face if m.face and open_missions else "▮" for m in pile)
        lines.append(
            f"    {branch} pw {power(board, seat, branch)}: {agents or '-'}"
            + (f" | missions {missions}" if pile else "")
        )
    return lines


def render(state: Any, seat: int | None) -> str:
    """The table as ``seat`` sees it (``None``: the public picture); ``state`` is the protocol
    state or a ``SeatView``."""
    view = state if isinstance(state, SeatView) else None
    public = view.state if view is not None else state
    game: M.Game | None = public.game
    n = public.n
    lines = [f"SpyNet, {n} players, situation option {public.option}"]
    if game is None:
        lines.append(f"setup: {public.stage}")
        return "\n".join(lines)
    lines.append(
        f"situation {game.situation or 'none'}; first player {game.first}; "
        f"deck {len(game.deck)}; piles {' '.join(str(len(p)) for p in game.piles)}; "
        f"discard {len(game.discard)}"
    )
    dom = "  ".join(
        f"{b}: {','.join(map(str, dominators(game.board, b))) or '-'}" for b in BRANCHES
    )
    lines.append(f"dominance {dom}")
    for s in range(n):
        lines.append(f"  seat {s}: {len(game.hands[s])} cards in hand")
        lines.extend(_tableau(game, s, True))
    if game.phase == M.END:
        lines.append(f"END ({public.stage})")
    else:
        lines.append(f"Now: seat {game.current}, {game.phase}")
    if view is not None and seat == view.seat:
        lines.append(f"You are seat {view.seat}")
        lines.append("  hand: " + ", ".join(_name(f) for _, f in view.hand))
        for k, pile in enumerate(view.piles, 1):
            seen = [f for f in pile if f is not None]
            if seen:
                lines.append(f"  pile {k}, seen: {', '.join(seen)}")
        if view.missions:
            lines.append("  your missions: " + ", ".join(f"{f} in {b}" for b, f in view.missions))
    if public.final is not None:
        for team, points, funding in zip(
            public.final.teams, public.final.points, public.final.funding
        ):
            lines.append(f"  team {team}: {points} points, {funding} funding cards")
    return "\n".join(lines)
