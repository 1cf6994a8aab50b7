"""What one seat sees of The Resistance, as a text picture and one line per record.

``Knowledge`` is everything a seat knows privately (its role, the spies if it is one and the
game is not Blind Spies, what its looks showed, its own mission cards). The seat builds it from
its secrets; bots and the terminal UI read it through ``SeatView``. ``render`` draws the public
state plus that knowledge; ``narrate`` tells what one record did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.model import Game


@dataclass(frozen=True)
class Knowledge:
    seat: int
    spy: bool
    known_spies: tuple[int, ...] = ()  # every spy seat, for a recognised spy (self included)
    seen_roles: tuple[tuple[int, bool], ...] = ()  # (seat, is spy) from plot looks
    seen_cards: tuple[tuple[int, int, str], ...] = ()  # (round, seat, card) from Close Eye
    own_cards: tuple[tuple[int, str], ...] = ()  # (round, card) this seat played

    def is_known_spy(self, seat: int) -> bool | None:
        """True/False when this seat knows ``seat``'s role, None when it does not."""
        if seat == self.seat:
            return self.spy
        if self.known_spies:
            return seat in self.known_spies
        for subject, spy in self.seen_roles:
            if subject == seat:
                return spy
        return None


@dataclass(frozen=True)
class SeatView:
    """What a decision shows its agent: the public game and this seat's private knowledge."""

    game: Game
    knowledge: Knowledge


def _mission_track(game: Game) -> str:
    cells = []
    for m in R.MISSIONS:
        result = game.results[m - 1]
        size = R.team_size(game.n, m)
        two = "*" if R.fails_needed(game.n, m) == 2 else ""
        if result is None:
            cells.append(f"{m}:[{size}{two}]")
        else:
            mark = "FAIL" if result.failed else "OK"
            cells.append(f"{m}:{mark}({result.successes}S/{result.fails}F)")
    return "  ".join(cells)


def render(state: Any, seat: int | None) -> str:
    """The table as ``seat`` sees it (``None``: the public picture). ``state`` is the protocol
    state or a bare ``Game`` (public only), or a ``SeatView`` (with that seat's knowledge)."""
    knowledge: Knowledge | None = None
    if isinstance(state, SeatView):
        knowledge = state.knowledge if seat == state.knowledge.seat else None
    game: Game = state.game if hasattr(state, "game") else state
    flags = (("plot", game.plot), ("targeting", game.targeting), ("blind spies", game.blind_spies))
    title = f"The Resistance, {game.n} players ({R.spies(game.n)} spies)"
    title += "".join(f", {name}" for name, on in flags if on)
    lines = [
        title,
        f"Missions  {_mission_track(game)}   score {game.successes}-{game.failures}",
        (
            f"Round {game.round}  Leader {game.leader}  vote track {'#' * game.vote_track}"
            f"{'.' * (R.MAX_REJECTIONS - game.vote_track)} ({game.vote_track}/5)"
        ),
    ]
    if game.proposal is not None:
        lines.append(
            f"Proposal: mission {game.proposal.mission}, team "
            f"{', '.join(map(str, game.proposal.team))}"
        )
    if game.votes and any(v is not None for v in game.votes):
        shown = " ".join(
            f"{s}:{'-' if v is None else 'A' if v else 'R'}" for s, v in enumerate(game.votes)
        )
        lines.append(f"Votes: {shown}")
    if game.plot:
        held = "  ".join(f"{s}:{','.join(h)}" for s, h in enumerate(game.hands) if h)
        lines.append(f"Plot deck {len(game.deck)} left; hands {held or 'none'}")
        if game.drawn_cards:
            lines.append(f"Drawn, to deal: {', '.join(game.drawn_cards)}")
    for look in game.looks:
        lines.append(f"  look: {look.viewer} saw {look.subject}'s {look.what.replace('_', ' ')}")
    if game.ending is not None:
        lines.append(f"END: {game.ending.winner} win ({game.ending.reason})")
    else:
        lines.append(f"Now: {game.phase}")
    if knowledge is not None:
        role = "Spy" if knowledge.spy else "Resistance"
        lines.append(f"You are seat {knowledge.seat}: {role}")
        if knowledge.known_spies:
            lines.append(f"  spies: {', '.join(map(str, knowledge.known_spies))}")
        for subject, spy in knowledge.seen_roles:
            lines.append(f"  you saw seat {subject}: {'Spy' if spy else 'Resistance'}")
        for rnd, subject, card in knowledge.seen_cards:
            lines.append(f"  you saw seat {subject}'s card in round {rnd}: {card}")
    return "\n".join(lines)


def narrate(before: Any, record: Any, after: Any) -> str:
    """One line: what ``record`` (a Record with seat and kind) did to the game."""
    old: Game = before.game if hasattr(before, "game") else before
    new: Game = after.game if hasattr(after, "game") else after
    who = f"seat {record.seat}"
    kind = record.kind
    if new.ending is not None and old.ending is None:
        return f"{who}: {kind}; game over, {new.ending.winner} win ({new.ending.reason})"
    if old.phase == R.FIRST_LEADER and new.phase != R.FIRST_LEADER:
        return f"the beacon names seat {new.leader} first Leader"
    if len(new.vote_log) > len(old.vote_log):
        last = new.vote_log[-1]
        yes = [s for s, v in enumerate(last.votes) if v]
        return (
            f"votes opened: approve {yes}; "
            f"{'approved' if last.approved else 'rejected'} (track {new.vote_track})"
        )
    if sum(r is not None for r in new.results) > sum(r is not None for r in old.results):
        result = next(r for r, o in zip(new.results, old.results) if r is not None and o is None)
        return (
            f"mission {result.mission}: {result.successes} Success, {result.fails} Fail: "
            f"{'FAILED' if result.failed else 'succeeded'}"
        )
    if len(new.plays) > len(old.plays):
        lines = []
        for seat, card, target in new.plays[len(old.plays) :]:
            title = R.TITLES[R.card_type(card)]
            if target == "dealt":
                lines.append(f"Leader deals {title} ({card}) to seat {seat}")
            else:
                lines.append(f"seat {seat} plays {title} ({card}) on {target}")
        return "; ".join(lines)
    if old.window is not None and kind in R.WINDOW_CARD.values():
        return f"{who} passes ({R.TITLES[kind]})"
    if new.proposal is not None and old.proposal != new.proposal:
        return f"Leader {new.leader} proposes mission {new.proposal.mission}: {new.proposal.team}"
    return f"{who}: {kind}"
