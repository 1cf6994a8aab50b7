"""SpyNet as a UI draws it: the picture of one moment (``screen``) and its history (``story``).

Theory of operation
-------------------
``screen`` reads the table state (``TableState`` over ``rules.State``) and, for a seat, the
seat's ``view.SeatView`` (live or rebuilt in hindsight). It never looks at a card the viewer
could not see: faces come from the public game (agents in play, the discard pile, face-up
missions, and after the final reveal every card) or from the seat's view (its hand, its own
missions, the piles it looked at). The picture is:

* ``status``: players and teams, the situation in play (its rules in ``explain``), whose turn and
  what they are doing, the deck, the hands' sizes, the final round, and the score at the end;
* ``board``: the deck, the three piles (sizes, and what this seat saw in each) and the discard
  pile; the agents in play per branch with each seat's power and who dominates; the missions
  per branch, face down except the viewer's own (and all of them once revealed);
* ``private``: the hand, card by card, with what each card is and does in ``explain``; the
  viewer's missions with their condition and whether it would hold now; the draft cards;
* ``result``: the outcome from the viewer's side and §9's breakdown (every mission, its
  condition, its points; each team's points and funding cards; the hands at the end).

``story`` tells one record in public terms, or returns None for a step of the card protocol that
says nothing yet: a played agent is told when its card is shown, a draw when the drawn card
reaches its drawer, the shuffle once every player has shuffled. Texts name cards by their printed
names and branches by their full names; card ids are for records only.
"""

from __future__ import annotations

from dataclasses import replace

from spycraft.crypto.records import Record, SignedRecord
from spycraft.engines.game import DONE, PLAY, REVEAL
from spycraft.engines.screens import forfeit_story, forfeiters, outcome, seat_list, sentence
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.cards import (
    AUSTERITY,
    BRANCHES,
    CARDS,
    DEEP_INFILTRATION,
    PAPER_TRAIL_HAND_LIMIT,
    Branch,
    Card,
    Condition,
    Effect,
    Kind,
    Verb,
)
from spycraft.engines.spynet.rules import TIE_BREAK, State, effect_use, side_name
from spycraft.engines.spynet.scoring import (
    CELL_MISSIONS,
    DEEP_AGENTS,
    FUNDS_CARDS,
    GRAND_BRANCHES,
    Board,
    Score,
    StackedAgent,
    agent_power,
    condition_holds,
    dominators,
    power,
    team_of,
    teammate,
    teams,
)
from spycraft.engines.spynet.view import SeatView
from spycraft.engines.table import ABANDONED, DESERTED, FRAUD, SHARED, TableState
from spycraft.engines.viewmodel import Cell, Event, Fact, Grid, Result, Screen

TITLE = "SpyNet"
UNREADABLE = "a card that cannot be read"

# --- cards in words -----------------------------------------------------------------------------


def branch_name(branch: Branch) -> str:
    return branch.full_name


def _branches_text(printed: Card) -> str:
    if printed.purple:
        return "any branch"
    return " or ".join(branch_name(b) for b in printed.branches)


def _stars(n: int) -> str:
    return f"{n} star{'s' * (n != 1)}"


def card_name(face: str | None) -> str:
    if face is None:
        return "a face-down card"
    printed = CARDS.get(face)
    return UNREADABLE if printed is None else printed.name


def card_line(face: str) -> str:
    """The card's name and what it is: "Spymaster (Intelligence agent, power 5)"."""
    printed = CARDS.get(face)
    if printed is None:
        return UNREADABLE
    if printed.kind is Kind.AGENT:
        what = f"{branch_name(printed.branches[0])} agent, power {printed.power}"
    elif printed.kind is Kind.SPECIAL_AGENT:
        what = f"{branch_name(printed.branches[0])} special agent, power {printed.power}"
    elif printed.kind is Kind.MERCENARY:
        what = f"mercenary, power {printed.power}, any branch"
    elif printed.kind is Kind.MISSION:
        what = f"{_branches_text(printed)} mission, {_stars(printed.stars)}"
        if printed.condition is not None:
            what += ", with a condition"
    elif printed.kind is Kind.FUNDING:
        what = f"funding, value {printed.value}"
    else:
        what = "situation"
    return f"{printed.name} ({what})"


def effect_text(effect: Effect, situation: str | None = None) -> str:
    """A special agent's effect in words, as §8 and §13 define it for this table."""
    if effect.verb is Verb.ADDITIONAL_AGENTS:
        if effect.full:
            return (
                f"When played: you may play {effect.full} more agent this turn "
                "(it may carry funding)."
            )
        return f"When played: you may play {effect.bare} more agents this turn, without funding."
    deep = situation == DEEP_INFILTRATION
    if effect.stack is not None:
        where = "any agent" if deep else "the top agent"
        target = (
            f"{where} of one opponent's {branch_name(effect.stack)} stack, whatever its power"
        )
    else:
        target = "any opposing agent" if deep else "one opposing top agent"
    cost = ""
    if effect.threshold_from_discard:
        cost = "first discard an agent from your hand face up, then "
        target += " whose power is at most the discarded card's printed power"
    elif effect.max_power is not None:
        target += f" with power {effect.max_power} or less"
    if effect.verb is Verb.REMOVE:
        does = f"remove {target}: it goes to the discard pile with its funding"
    else:
        does = (
            f"take {target} onto your own stack of its branch (a mercenary: a branch you choose), "
            "with its funding"
        )
    return f"When played: {cost}{does}. You may also decline. A teammate is never a target."


CONDITION_TEXT = {
    Condition.DOM: "you dominate the branch it lies in",
    Condition.NET: "you have at least one agent in each of the four branches",
    Condition.DEEP: f"you have at least {DEEP_AGENTS} agents in the branch it lies in",
    Condition.FUNDS: f"you have at least {FUNDS_CARDS} funding cards among your agents",
    Condition.CELL: f"at least {CELL_MISSIONS} of your missions, this one included, lie in its "
    "branch",
    Condition.PAIR: "you have at least one agent in each of its two branches",
    Condition.GRAND: f"you dominate at least {GRAND_BRANCHES} branches",
}


CONDITION_NEEDS = {
    Condition.DOM: "its owner dominates its branch",
    Condition.NET: "an agent in each of the four branches",
    Condition.DEEP: f"{DEEP_AGENTS} agents in its branch",
    Condition.FUNDS: f"{FUNDS_CARDS} funding cards among its owner's agents",
    Condition.CELL: f"{CELL_MISSIONS} missions in its branch",
    Condition.PAIR: "an agent in each of its two branches",
    Condition.GRAND: f"its owner dominates {GRAND_BRANCHES} branches",
}
"""What a condition needs, said of any owner (the final reveal shows every seat's)."""


def condition_text(condition: Condition) -> str:
    return f"Scores only if, at the end of the game, {CONDITION_TEXT[condition]}."


def card_explain(face: str, situation: str | None = None) -> str:
    """The rules text of a card, for a help popup where the card appears."""
    printed = CARDS.get(face)
    if printed is None:
        return "A card this seat cannot read: someone sent a false card."
    if printed.kind is Kind.SITUATION:
        return printed.text
    if printed.is_agent:
        text = (
            f"Play it on top of your {_branches_text(printed)} stack: it adds its power "
            "there (with any funding you attach as you play it)."
        )
        if printed.effect is not None:
            text += " " + effect_text(printed.effect, situation)
        return text
    if printed.kind is Kind.MISSION:
        text = (
            f"Worth {_stars(printed.stars)}. Play it face down into {_branches_text(printed)} "
            "during a deploy, only where you dominate (more power than every opponent), one "
            "mission per branch a turn."
        )
        if printed.condition is not None:
            text += " " + condition_text(printed.condition)
        return text
    adds = "1 power (Austerity: every funding card counts 1)" if situation == AUSTERITY else (
        f"{printed.value} power"
    )
    return (
        f"Attach it to an agent as you play that agent (the turn's first agent, or an extra one "
        f"that may carry funding): it adds {adds}. Funding cards in your tableau also "
        "break a tie on points."
    )


def _agent_text(agent: StackedAgent, situation: str | None) -> str:
    funding = "".join(f" + {card_name(f)}" for f in agent.funding)
    return f"{card_name(agent.card)}{funding} ({agent_power(agent, situation)})"


# --- seats and teams ----------------------------------------------------------------------------


def seat_name(seat: int) -> str:
    return f"seat {seat}"


def _side_text(side: str) -> str:
    """A side as ``rules.side_name`` writes it ("seat 1", "team 0+2"), in words."""
    for team in teams(4) + teams(3):
        if side_name(team) == side:
            return seat_list(team)
    return side


def _teams_text(n: int) -> str:
    if n == 4:
        return "4 players in two teams: seats 0 and 2 against seats 1 and 3"
    return f"{n} players, each alone"


# --- the screen ---------------------------------------------------------------------------------


def _turn_text(state: State, game: M.Game) -> str:
    who = seat_name(game.current)
    if game.phase == M.DRAFT:
        text = f"draft: {who} keeps one card and passes the rest"
    elif game.phase == M.ACTION:
        text = f"{who}: recruit or deploy"
    elif game.phase == M.RECRUIT:
        text = f"{who} recruits" + (f", looking at pile {game.looking}" if game.looking else "")
    elif game.phase == M.DEPLOY:
        text = f"{who} deploys" + (" (final turn)" if game.final else "")
    elif game.phase == M.EFFECT:
        text = f"{who} decides the effect of {card_name(game.special)}"
    elif game.phase == M.PAPER:
        text = f"{who} discards down to {PAPER_TRAIL_HAND_LIMIT} cards (Paper Trail)"
    elif state.act == REVEAL and state.settling and not state.revealed:
        text = ("final reveal: the players confirm the forfeit (those who voted a player absent "
                "first), then every player opens its cards")
    elif state.act == REVEAL:
        text = "final reveal: every player opens its cards"
    else:
        text = "the game is over"
    if game.reveal is not None and game.phase != M.END:
        text += " (cards are being shown)"
    return text


def _situation_fact(game: M.Game) -> Fact:
    if game.situation is None:
        return Fact("Situation", "none")
    printed = CARDS[game.situation]
    return Fact("Situation", printed.name, explain=printed.text)


def _status(state: State, game: M.Game | None, seat: int | None) -> tuple[Fact, ...]:
    facts = [Fact("Players", _teams_text(state.n))]
    if seat is not None:
        mate = teammate(seat, state.n)
        you = seat_name(seat) + (f", partner of {seat_name(mate)}" if mate is not None else "")
        facts.append(Fact("You", you, "you"))
    if game is None:
        facts.append(Fact("Setup", "every player shuffles the deck and proves its shuffle"))
        return tuple(facts)
    facts.append(_situation_fact(game))
    facts.append(Fact("First player", seat_name(game.first)))
    if state.act in (PLAY, REVEAL) and game.phase != M.END:
        tone = "you" if game.current == seat else "turn"
        facts.append(Fact("Now", _turn_text(state, game), tone))
    elif state.act == REVEAL:
        facts.append(Fact("Now", _turn_text(state, game), "turn"))
    facts.append(Fact("Deck", f"{len(game.deck)} cards"))
    if game.final_turns is not None and game.phase != M.END:
        left = len(game.final_turns)
        facts.append(
            Fact(
                "Final round",
                f"the deck is empty: {left} more turn{'s' * (left != 1)} after this one, "
                "deploy only",
            )
        )
    facts.append(
        Fact("Hands", ", ".join(f"{seat_name(s)} {len(h)}" for s, h in enumerate(game.hands)))
    )
    if state.final is not None:
        facts.append(Fact("Score", _score_line(state.final)))
    return tuple(facts)


def _pile_grid(game: M.Game, view: SeatView | None) -> Grid:
    columns = ("Pile", "Cards", "You saw") if view is not None else ("Pile", "Cards", "Shown")
    rows = [(Cell("deck"), Cell(str(len(game.deck)), "hidden"), Cell(""))]
    for k, pile in enumerate(game.piles, 1):
        seen: list[str] = []
        if view is not None and k - 1 < len(view.piles):
            seen = [card_name(f) for f in view.piles[k - 1] if f is not None]
        rows.append((Cell(f"pile {k}"), Cell(str(len(pile)), "hidden"), Cell(", ".join(seen))))
    last = ", ".join(card_name(f) for f in game.discard[-6:])
    more = "earlier cards, " if len(game.discard) > 6 else ""
    rows.append(
        (Cell("discard pile"), Cell(str(len(game.discard))), Cell(f"{more}{last}" if last else ""))
    )
    return Grid("Deck and piles", columns, tuple(rows))


def _tone_for(holder: int, seat: int | None, n: int) -> str:
    if seat is None:
        return "good"
    return "good" if holder in team_of(seat, n) else "bad"


def _agents_grid(board: Board, seat: int | None) -> Grid:
    n = board.players
    columns = ("Branch", *(sentence(seat_name(s)) for s in range(n)), "Dominates")
    rows = []
    for branch in BRANCHES:
        holders = dominators(board, branch)
        cells = [Cell(branch_name(branch))]
        for s in range(n):
            stack = board.tableaux[s].stack(branch)
            agents = ", ".join(_agent_text(a, board.situation) for a in stack)
            text = f"power {power(board, s, branch)}" + (f": {agents}" if agents else "")
            tone = _tone_for(s, seat, n) if s in holders else "you" if s == seat else ""
            cells.append(Cell(text, tone))
        cells.append(Cell(", ".join(seat_name(h) for h in holders) or "nobody"))
        rows.append(tuple(cells))
    return Grid("Agents in play (power per branch)", columns, tuple(rows))


def _mission_face(state: State, game: M.Game, seat: int, mission: M.Mission,
                  view: SeatView | None, own: dict[int, str]) -> str | None:
    if mission.face is not None:
        return mission.face
    if state.faces:
        return state.faces[mission.position]
    if view is not None and seat == view.seat:
        return own.get(mission.position)
    return None


def _own_missions(game: M.Game, view: SeatView | None) -> dict[int, str]:
    """Position -> face of the viewer's own missions (the view lists them in pile order)."""
    if view is None or view.seat >= len(game.missions):
        return {}
    positions = [m.position for pile in game.missions[view.seat] for m in pile]
    return {p: face for p, (_, face) in zip(positions, view.missions)}


def _missions_grid(state: State, game: M.Game, view: SeatView | None) -> Grid:
    own = _own_missions(game, view)
    columns = ("Branch", *(sentence(seat_name(s)) for s in range(game.n)))
    rows = []
    for i, branch in enumerate(BRANCHES):
        cells = [Cell(branch_name(branch))]
        for s in range(game.n):
            names, hidden = [], 0
            for mission in game.missions[s][i]:
                face = _mission_face(state, game, s, mission, view, own)
                if face is None or face not in CARDS:
                    hidden += 1
                else:
                    names.append(f"{card_name(face)} ({_stars(CARDS[face].stars)})")
            if hidden:
                names.append(f"{hidden} face down")
            tone = "hidden" if hidden else "you" if view is not None and s == view.seat else ""
            cells.append(Cell(", ".join(names) or "-", tone))
        rows.append(tuple(cells))
    return Grid("Missions", columns, tuple(rows))


def _board_with(game: M.Game, seat: int, faces: dict[int, str]) -> Board:
    """The board with ``seat``'s missions filled in from faces it knows (for its conditions)."""
    tableau = game.board.tableaux[seat]
    piles = tuple(
        tuple(faces[m.position] for m in pile if m.position in faces)
        for pile in game.missions[seat]
    )
    tableaux = list(game.board.tableaux)
    tableaux[seat] = replace(tableau, missions=piles)
    return replace(game.board, tableaux=tuple(tableaux))


def _private(state: State, game: M.Game | None, view: SeatView) -> tuple[Fact, ...]:
    facts: list[Fact] = []
    situation = None if game is None else game.situation
    if game is not None and (mate := teammate(view.seat, game.n)) is not None:
        facts.append(Fact("Partner", seat_name(mate), explain="Your teammate sits opposite; "
                          "you may pass one card a turn face down to each other."))
    facts.append(Fact("Your hand", f"{len(view.hand)} card{'s' * (len(view.hand) != 1)}", "you"))
    for _, face in view.hand:
        facts.append(Fact("In hand", card_line(face), explain=card_explain(face, situation)))
    for _, face in view.draft:
        facts.append(Fact("Draft choice", card_line(face), explain=card_explain(face, situation)))
    if game is None:
        return tuple(facts)
    own = _own_missions(game, view)
    board = _board_with(game, view.seat, own)
    for branch, face in view.missions:
        printed = CARDS.get(face)
        if printed is None:
            continue
        text = f"{printed.name} in {branch_name(branch)}, {_stars(printed.stars)}"
        explain = card_explain(face, situation)
        if printed.condition is not None:
            holds = condition_holds(board, view.seat, branch, face)
            text += ", condition met now" if holds else ", condition not met now"
        facts.append(Fact("Your mission", text, "you", explain))
    return tuple(facts)


def _score_line(final: Score) -> str:
    return ", ".join(
        f"{seat_list(t)} {p} point{'s' * (p != 1)}" for t, p in zip(final.teams, final.points)
    )


def _mission_rows(final: Score) -> tuple[tuple[Cell, ...], ...]:
    rows = []
    for m in final.missions:
        printed = CARDS[m.mission]
        condition = "none" if printed.condition is None else CONDITION_NEEDS[printed.condition]
        if printed.condition is not None:
            condition += ": met" if m.holds else ": not met"
        rows.append(
            (
                Cell(seat_name(m.seat)),
                Cell(branch_name(m.branch)),
                Cell(printed.name),
                Cell(str(printed.stars)),
                Cell(condition, "" if m.holds else "bad"),
                Cell(str(m.points), "good" if m.points else "muted"),
            )
        )
    return tuple(rows)


def score_why(final: Score) -> str:
    """§9's breakdown in one line per team: each mission's points and why a condition failed."""
    parts = []
    for team, points in zip(final.teams, final.points):
        missions = [m for m in final.missions if m.seat in team]
        items = []
        for m in missions:
            printed = CARDS[m.mission]
            item = f"{printed.name} {m.points}"
            if not m.holds:
                item += f" (needs {CONDITION_NEEDS[printed.condition or Condition.DOM]})"
            items.append(item)
        listed = "; ".join(items) if items else "no mission"
        parts.append(f"{sentence(seat_list(team))}: {points} = {listed}")
    return ". ".join(parts)


def _tie_line(final: Score) -> str | None:
    best = max(final.points)
    tied = [i for i, p in enumerate(final.points) if p == best]
    if len(tied) < 2:
        return None
    funding = ", ".join(f"{seat_list(final.teams[i])} {final.funding[i]}" for i in tied)
    if len(final.winners) == 1:
        return f"Tied on points; the most funding cards in play breaks the tie: {funding}"
    return f"Tied on points and on funding cards ({funding}): the win is shared"


def _result(state: State, table: TableState[State], seat: int | None) -> Result | None:
    result = table.result
    if result is None:
        return None
    detail: list[str] = []
    reveal: list[Grid] = []
    final = state.final
    if final is not None:
        detail.append("Score: " + _score_line(final))
        tie = _tie_line(final)
        if tie is not None:
            detail.append(tie)
        columns = ("Seat", "Branch", "Mission", "Stars", "Condition", "Points")
        reveal.append(Grid("Missions scored", columns, _mission_rows(final)))
        rows = tuple(
            (Cell(sentence(seat_list(t))), Cell(str(p)), Cell(str(f)))
            for t, p, f in zip(final.teams, final.points, final.funding)
        )
        reveal.append(Grid("Final score", ("Team", "Points", "Funding cards"), rows))
    elif state.outcome is not None:  # a forfeiter's closed missions: its side's points a range
        detail.append("Score: " + state.outcome.detail)
    game = state.game
    if state.faces and game is not None:
        hands = tuple(
            (Cell(sentence(seat_name(s))), Cell(", ".join(card_name(state.faces[p]) for p in hand)
                                                or "-"))
            for s, hand in enumerate(game.hands)
        )
        reveal.append(Grid("Hands at the end", ("Seat", "Cards"), hands))
    mine = None if seat is None else side_name(team_of(seat, state.n))
    return outcome(result, mine, lambda side: sentence(_side_text(side)), detail, reveal)


def screen(table: TableState[State], seat: int | None, view: SeatView | State | None) -> Screen:
    """The table as ``seat`` sees it (None: the public picture, for spectators and replay)."""
    state = table.game
    game = state.game
    seat_view = view if isinstance(view, SeatView) and seat is not None else None
    status = _status(state, game, seat)
    board: tuple[Grid, ...] = ()
    notes: list[str] = []
    if game is not None:
        board = (
            _pile_grid(game, seat_view),
            _agents_grid(game.board, seat),
            _missions_grid(state, game, seat_view),
        )
        if game.situation is not None:
            printed = CARDS[game.situation]
            notes.append(f"Situation in play, {printed.name}: {printed.text}.")
        if game.final_turns is not None and game.phase != M.END:
            notes.append("Final round: no more recruiting; each player deploys once more.")
    private = _private(state, game, seat_view) if seat_view is not None else ()
    return Screen(
        TITLE, status, board, private, _result(state, table, seat), tuple(notes)
    )


# --- the story ----------------------------------------------------------------------------------


def _final_round_note(old: M.Game | None, new: M.Game | None) -> str:
    if new is None or new.final_turns is None or (old is not None and old.final_turns is not None):
        return ""
    return "; the deck is empty: final round, every player deploys once more"


def _revealed(before: State, after: State) -> bool:
    return len(after.ops.done) > len(before.ops.done)


def dominance_change(old: Board, new: Board) -> str:
    """"; seat 1 now dominates Signals; seat 0 no longer dominates Operations" (or "")."""
    parts = []
    for branch in BRANCHES:
        was, now = set(dominators(old, branch)), set(dominators(new, branch))
        parts += [f"{seat_name(s)} now dominates {branch_name(branch)}" for s in sorted(now - was)]
        parts += [
            f"{seat_name(s)} no longer dominates {branch_name(branch)}" for s in sorted(was - now)
        ]
    return "".join(f"; {p}" for p in parts)


def _placed(old: M.Game, new: M.Game) -> str:
    pending = old.pending
    assert pending is not None and pending.branch is not None
    seat = old.current
    stack = new.board.tableaux[seat].stack(pending.branch)
    if not stack:
        return f"{sentence(seat_name(seat))} plays an agent"
    agent = stack[-1]
    funding = " with " + " and ".join(card_name(f) for f in agent.funding) if agent.funding else ""
    before = power(old.board, seat, pending.branch)
    after = power(new.board, seat, pending.branch)
    return (
        f"{sentence(seat_name(seat))} plays {card_name(agent.card)}{funding} into "
        f"{branch_name(pending.branch)}: power there {before} to {after}"
        + dominance_change(old.board, new.board)
    )


def _effect_done(old: M.Game, target_seat: int, branch: Branch, depth: int,
                 destination: Branch | None, discarded: str | None) -> str:
    special = card_name(old.special)
    stack = old.board.tableaux[target_seat].stack(branch)
    victim = card_name(stack[depth].card) if depth < len(stack) else "an agent"
    who = sentence(seat_name(old.current))
    paid = f"discards {card_name(discarded)} and " if discarded is not None else ""
    if destination is None:
        does = f"removes {seat_name(target_seat)}'s {victim} from {branch_name(branch)}"
    else:
        does = (
            f"takes {seat_name(target_seat)}'s {victim} from {branch_name(branch)} into its own "
            f"{branch_name(destination)} stack"
        )
    return f"{who} {paid}uses {special}: {does}"


def _tokens_story(before: State, after: State, seq: int) -> Event | None:
    old, new = before.game, after.game
    if old is None or new is None or old.reveal is None or not _revealed(before, after):
        return None
    if len(after.violations) > len(before.violations):
        v = after.violations[-1]
        return Event(seq, f"{sentence(seat_name(v.seat))}'s cards contradict its play: "
                     "it forfeits", tone="bad")
    need = old.reveal
    who = sentence(seat_name(old.current))
    if need.then == M.AFTER_DRAW:
        count = len(need.cards)
        text = f"{who} returns every pile and draws {count} card{'s' * (count != 1)} from the deck"
        return Event(seq, text + _final_round_note(old, new))
    if need.then == M.AFTER_AGENT:
        return Event(seq, _placed(old, new))
    if need.then == M.AFTER_EFFECT and old.pending is not None and old.pending.use is not None:
        use = old.pending.use
        discarded = new.discard[len(old.discard)] if len(new.discard) > len(old.discard) else None
        text = _effect_done(old, use.target.seat, use.target.branch, use.target.depth,
                            use.destination, discarded)
        return Event(seq, text + dominance_change(old.board, new.board))
    if need.then == M.AFTER_MISSION and old.pending is not None:
        branch = old.pending.branch
        face = after.ops.face(old.pending.card)
        where = f" in {branch_name(branch)}" if branch is not None else ""
        return Event(seq, f"{who} plays the mission {card_name(face)}{where}, face up "
                     "(Open Secrets)")
    if need.then == M.AFTER_PAPER:
        names = ", ".join(card_name(f) for f in new.discard[len(old.discard):])
        return Event(seq, f"{who} discards {names} (Paper Trail: at most "
                     f"{PAPER_TRAIL_HAND_LIMIT} cards at the end of a turn)"
                     + _final_round_note(old, new))
    return None


def _result_text(body: object) -> str:
    winner = body.get("winner") if isinstance(body, dict) else None
    reason = body.get("reason") if isinstance(body, dict) else None
    if isinstance(winner, tuple) and winner:
        names = [_side_text(str(side)) for side in winner]
        text = sentence(", ".join(names[:-1]) + f" and {names[-1]} share the win")
    elif winner:
        text = f"{sentence(_side_text(str(winner)))} won"
    else:
        text = "The game ends with no winner"
    if reason == "score":
        return text + " on points"
    if reason == TIE_BREAK:
        return text + ": tied on points, with the most funding cards in play"
    if reason == SHARED:
        return text + ": tied on points and on funding cards"
    if reason == FRAUD:
        return text + ": a player was caught breaking the rules"
    if reason in (ABANDONED, DESERTED):
        return text + ": a player left the game"
    return text


def story(before: State | None, record: Record | SignedRecord, after: State) -> Event | None:
    """One history line for ``record`` (or the signed record that carries it; None for a
    card-protocol step that says nothing yet)."""
    rec = record.record if isinstance(record, SignedRecord) else record
    kind, seq, body = rec.kind, rec.seq, rec.body
    who = sentence(seat_name(rec.seat))
    old_state, new_state = before, after
    old = None if old_state is None else old_state.game
    new = new_state.game
    if kind == "deck_key":
        return None
    if kind == "deck_shuffle":
        if new_state.ops.shuffles == new_state.n:
            return Event(seq, "The deck is shuffled by every player, each shuffle proven")
        return None
    if kind == "beacon":
        if new is not None and old is None:
            situation = "none" if new.situation is None else CARDS[new.situation].name
            return Event(
                seq,
                f"{sentence(seat_name(new.first))} plays first; situation in play: {situation}. "
                f"Three piles of one card and the draft are dealt face down",
            )
        return None
    if kind == "result":
        return Event(seq, _result_text(body), tone="good")
    if kind in ("fraud", "abandon"):
        gone = forfeiters(record, set(new_state.forfeits)
                          - set(() if old_state is None else old_state.forfeits))
        seats = seat_list(tuple(gone)) if gone else "a player"
        text = forfeit_story(kind, seat_name(record.seat), seats, len(gone) > 1)
        return Event(seq, f"{sentence(text)}; every player opens its cards", tone="bad")
    if kind == "deck_tokens":
        return None if old_state is None else _tokens_story(old_state, new_state, seq)
    if kind == "reveal":
        if new_state.final is not None and (old_state is None or old_state.final is None):
            return Event(seq, "Every card is turned face up; final score: "
                         + _score_line(new_state.final), why=score_why(new_state.final))
        if new_state.act == DONE and (old_state is None or old_state.act != DONE):
            return Event(seq, "Every player has opened its cards", tone="bad"
                         if new_state.violations else "")
        return None
    if old is None:
        return None
    if kind == "draft_pick":
        if new is not None and not new.draft:
            return Event(seq, f"{who} keeps a draft card and passes the last one to "
                         f"{seat_name(new.current)}; the draft is over")
        left = 0 if new is None else len(new.draft)
        to = "" if new is None else f" to {seat_name(new.current)}"
        return Event(seq, f"{who} keeps a draft card and passes {left}{to}")
    if kind == "action":
        return Event(seq, f"{who} {'recruits' if body['recruit'] else 'deploys'}", tone="turn")
    if kind == "pile":
        k = old.looking or 0
        size = len(old.piles[k - 1]) if k else 0
        if body["take"]:
            text = f"{who} takes pile {k} ({size} card{'s' * (size != 1)})"
            return Event(seq, text + _final_round_note(old, new))
        return Event(seq, f"{who} looks at pile {k} and puts it back")
    if kind == "play_agent":
        return None
    if kind == "play_mission":
        if new is not None and new.reveal is not None:
            return None  # Open Secrets: told when the card is shown
        branch = M.branch_of(body["branch"])
        return Event(seq, f"{who} plays a mission face down in {branch_name(branch)}")
    if kind == "pass_card":
        mate = teammate(rec.seat, old.n)
        return Event(seq, f"{who} passes a card face down to its partner, "
                     f"{seat_name(mate if mate is not None else rec.seat)}")
    if kind == "end_deploy":
        return Event(seq, f"{who} ends its turn" + _final_round_note(old, new))
    if kind == "effect":
        use, discard = effect_use(body["use"])
        if use is None:
            return Event(seq, f"{who} does not use the effect of {card_name(old.special)}")
        if discard is not None or new is None:
            return None  # told once the discarded card is shown
        t = use.target
        text = _effect_done(old, t.seat, t.branch, t.depth, use.destination, None)
        return Event(seq, text + dominance_change(old.board, new.board))
    return None
