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


PHASE_TEXT = {
    R.FIRST_LEADER: "drawing the first Leader",
    R.PROPOSE: "the Leader proposes a team",
    R.VOTE: "everyone votes on the team",
    R.MISSION_PLAY: "the team plays mission cards",
    R.MISSION_REVEAL: "the mission cards are counted",
    R.PLOT_DRAW: "plot cards are drawn",
    R.PLOT_DEAL: "the Leader deals the plot cards",
    R.PLOT_RESOLVE: "plot cards take effect",
    **{window: f"who plays {R.TITLES[card]}?" for window, card in R.WINDOW_CARD.items()},
}


def card_title(card: str) -> str:
    """A plot card as people call it (the id is for records only)."""
    return R.TITLES[R.card_type(card)]


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
        held = "; ".join(f"seat {s}: {', '.join(map(card_title, h))}"
                         for s, h in enumerate(game.hands) if h)
        lines.append(f"Plot deck {len(game.deck)} left; in hand: {held or 'none'}")
        if game.drawn_cards:
            lines.append(f"Drawn, to deal: {', '.join(map(card_title, game.drawn_cards))}")
    for look in game.looks:
        lines.append(f"  look: {look.viewer} saw {look.subject}'s {look.what.replace('_', ' ')}")
    if game.ending is not None:
        lines.append(f"END: {ending_text(game.ending)}")
    else:
        lines.append(f"Now: {PHASE_TEXT.get(game.phase, game.phase.lower().replace('_', ' '))}")
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


# What each plot card does, for the person who sees it played (rules section 5.1).
PLOT_TEXT = {
    R.STRONG_LEADER: "takes the Leader's place and proposes now",
    R.NO_CONFIDENCE: "overturns the approved team",
    R.OPINION_MAKER: "votes first, face up, for the rest of the game",
    R.CLOSE_EYE: "will see one team member's mission card",
    R.SPOTLIGHT: "makes one team member play the mission card face up",
    R.OVERHEARD: "sees the role of a neighbour",
    R.ESTABLISH_CONFIDENCE: "the Leader shows a role card",
    R.OPEN_UP: "shows a role card to a player of its choice",
    R.TAKE_RESPONSIBILITY: "takes a plot card from another player",
}
REASONS = {
    "three_successes": "three missions succeeded",
    "three_failures": "three missions failed",
    "five_rejections": "five teams in a row were rejected",
}
SIDE_NAMES = {R.RESISTANCE: "the Resistance", R.SPIES: "the Spies"}
# Protocol steps a person need not read one by one: the role deal is told once, when it is
# done; votes when they are opened; mission cards when they are counted.
SETUP_KINDS = ("key_share", "recognition", "shuffle", "deal_tokens", "spy_tag")
QUIET_KINDS = ("beacon", "vote_commit", "vote_open", "mission_card", "mix", "mission_shares",
               "spotlight_shares", "eye_token", "look", "reveal")


def seats(team: tuple[int, ...]) -> str:
    """``seats 0, 2 and 4`` (the words a person reads)."""
    names = [str(s) for s in team]
    if len(names) == 1:
        return f"seat {names[0]}"
    return f"seats {', '.join(names[:-1])} and {names[-1]}"


def ending_text(ending: R.Ending) -> str:
    return (f"{SIDE_NAMES.get(ending.winner, ending.winner)} win: "
            f"{REASONS.get(ending.reason, ending.reason.replace('_', ' '))}")


def _play_text(seat: int, card: str, target: Any) -> str:
    kind = R.card_type(card)
    title = R.TITLES[kind]
    if target == "dealt":
        return f"the Leader deals {title} to seat {seat} ({PLOT_TEXT[kind]})"
    if kind == R.TAKE_RESPONSIBILITY and isinstance(target, tuple) and len(target) == 2:
        owner, taken = target  # both public: the card was face up in front of its owner
        return f"seat {seat} plays {title}: takes {card_title(taken)} from seat {owner}"
    on = f" on seat {target}" if isinstance(target, int) and not isinstance(target, bool) else ""
    return f"seat {seat} plays {title}{on}: {PLOT_TEXT[kind]}"


def _mission_text(result: R.MissionResult) -> str:
    shown = "".join(f"; In the Spotlight, seat {s} played {card}" for s, card in result.spotlight)
    return (f"mission {result.mission} ({seats(result.team)}, Leader seat {result.leader}): "
            f"{result.successes} Success, {result.fails} Fail: "
            f"{'failed' if result.failed else 'succeeded'}{shown}")


def _roles_text(state: Any) -> str:
    roles = getattr(state, "roles", ())
    spies = tuple(i for i, role in enumerate(roles) if role == "spy")
    return f"the final reveal: the Spies were {seats(spies)}" if spies else ""


def narrate(before: Any, record: Any, after: Any) -> str:
    """One line: what ``record`` (a Record with seat and kind) did to the game, for a person;
    "" for a protocol step told together with the others of its kind."""
    old: Game = before.game if hasattr(before, "game") else before
    new: Game = after.game if hasattr(after, "game") else after
    who = f"seat {record.seat}"
    kind = record.kind
    lines = []
    if kind in SETUP_KINDS:
        if getattr(before, "act", None) == "setup" and getattr(after, "act", None) != "setup":
            recognised = "" if new.blind_spies else "; the spies know each other"
            return f"roles dealt and verified: every seat knows its own role{recognised}"
        return ""
    if old.phase == R.FIRST_LEADER and new.phase != R.FIRST_LEADER:
        lines.append(f"seat {new.leader} is drawn at random to be the first Leader")
    if old.opinion_step and not new.opinion_step and new.phase == R.VOTE:
        for maker in old.voters:  # rules 5.5: the Opinion Maker's vote is shown before the rest
            vote = new.votes[maker]
            lines.append(f"Opinion Maker seat {maker} votes first, face up: "
                         f"{'approve' if vote else 'reject'}")
    if len(new.vote_log) > len(old.vote_log):
        last = new.vote_log[-1]
        yes = tuple(s for s, v in enumerate(last.votes) if v)
        approve = f"{seats(yes)} approve{'s' * (len(yes) == 1)}" if yes else "nobody approves"
        lines.append(f"votes: {approve}; the team is {'approved' if last.approved else 'rejected'}"
                     f" (rejections in a row: {new.vote_track})")
    if sum(r is not None for r in new.results) > sum(r is not None for r in old.results):
        result = next(r for r, o in zip(new.results, old.results) if r is not None and o is None)
        lines.append(_mission_text(result))
    elif len(new.spotlight_cards) > len(old.spotlight_cards):
        for s, card in new.spotlight_cards[len(old.spotlight_cards):]:
            lines.append(f"In the Spotlight: seat {s}'s mission card is shown: {card}")
    if len(new.plays) > len(old.plays):
        lines.extend(_play_text(*play) for play in new.plays[len(old.plays):])
    elif old.window is not None and kind in R.WINDOW_CARD.values():
        lines.append(f"{who} does not play {R.TITLES[kind]}")
    if new.proposal is not None and old.proposal != new.proposal:
        lines.append(f"Leader seat {new.leader} proposes {seats(new.proposal.team)} "
                     f"for mission {new.proposal.mission}")
    if new.ending is not None and old.ending is None:
        lines.append(f"game over: {ending_text(new.ending)}")
    if getattr(after, "roles", ()) and not getattr(before, "roles", ()):
        lines.append(_roles_text(after))
    if lines:
        return "; ".join(line for line in lines if line)
    if kind in QUIET_KINDS:
        return ""
    if kind == "result":
        return "the result is written"
    return f"{who}: {kind.replace('_', ' ')}"
