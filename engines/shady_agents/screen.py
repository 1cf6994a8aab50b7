"""Shady Agents as a UI draws it (``engines.viewmodel``): the table's picture and its history.

Theory of operation
-------------------
``screen`` reads the game's state (the public game; after the final reveal every role, tool
and discard) and, for a seat, its ``SeatView`` (``view.Knowledge``: its team and the kinds of
the tools it gave, received and discarded). Face-down tools read "a tool" to everyone but the
giver and the receiver until the final reveal turns them over. The board is each player's tools
(held, received, given, discarded) and the interrogations (the question, and one column per
seat with its answer, "not eligible" or "asks"); the result is §7's breakdown: each player's
value, each team's score with the short team's bonus, the Medkit tie-break.

``story`` tells each record in the game's words; the role deal is told once, when the last
seat's tokens let every seat read its card, and the beacon values of a draw once, by the draw.
The line mode, replay and watch print this story too (``cli.lines``).
"""

from __future__ import annotations

from dataclasses import replace

from spycraft.crypto.records import Record
from spycraft.engines.game import SETUP
from spycraft.engines.screens import forfeit_story, forfeiters, outcome, seat_list, sentence, signed
from spycraft.engines.shady_agents import ABOUT, scoring
from spycraft.engines.shady_agents import cards as C
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import (
    CORRUPT,
    LAW_ABIDING,
    MEDKIT,
    TEAM_NAMES,
    TEAMS,
    TOOL_NAMES,
    Team,
    Tool,
)
from spycraft.engines.shady_agents.rules import State, final_facts
from spycraft.engines.shady_agents.view import Knowledge, SeatView
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Cell, Event, Fact, Grid, Result, Screen

TEAM = dict(TEAM_NAMES)
TOOL = dict(TOOL_NAMES)
TEAM_RULES = {
    LAW_ABIDING: "Law-abiding agents answer every interrogation truthfully. Your team wins with "
    "the higher score: each member's Medkits received minus Bullets received.",
    CORRUPT: "Corrupt agents must lie in every interrogation answer. Your team wins with the "
    "higher score: each member's Medkits received minus Bullets received.",
}
TOOL_RULES = ("Each player starts with a Bullet and a Medkit. A tool you receive stays face down "
              "in front of you and counts at the end: +1 for a Medkit, -1 for a Bullet. Tools "
              "you hold must all be given away in round 2.")
ROUND_TEXT = {
    M.ROUND1: "round 1 (clockwise): make a Move (give a tool face down) or call an "
    "Interrogation (discard a tool, the first player's is free)",
    M.ROUND2: "round 2 (counter-clockwise, ending with the first player): give away every "
    "tool still held",
}


def _tool(kind: Tool | None) -> str:
    return "a tool" if kind is None else f"a {TOOL[kind]}"


def answer_text(card: C.Card, answer: C.Answer) -> str:
    if card.form == "P" and isinstance(answer, int):
        return f"seat {answer}"
    if card.form == "S" and isinstance(answer, int) and answer > 0:
        return f"+{answer}"
    return str(answer)


def _now(game: M.Game, viewer: int | None) -> Fact | None:
    if game.phase in (M.ROUND1, M.ROUND2):
        seat = game.turn_seat()
        who = "you" if seat == viewer else f"seat {seat}"
        return Fact("Now", f"{who}: {ROUND_TEXT[game.phase]}", "turn" if seat == viewer else "")
    if game.phase == M.ANSWERS:
        seat = game.next_answerer()
        who = "you" if seat == viewer else f"seat {seat}"
        return Fact("Now", f"{who} must answer the interrogation",
                    "turn" if seat == viewer else "")
    if game.phase == M.DRAW:
        return Fact("Now", "an interrogation card is drawn")
    if game.phase == M.FIRST:
        return Fact("Now", "roles are dealt and the first player drawn")
    return None


def _status(game: M.Game, viewer: int | None) -> tuple[Fact, ...]:
    facts = [Fact("Players", str(game.n))]
    if game.n % 2 == 0 or game.leftover is not None:
        law, corrupt = scoring.team_sizes(game.n, game.leftover)
        text = f"{law} Law-abiding, {corrupt} Corrupt"
        if game.leftover is not None:
            text += f"; the leftover card is {TEAM[game.leftover]}: that short team gets +1"
        facts.append(Fact("Teams", text, explain="Odd tables deal one card more than players "
                          "and show the leftover: its team is one player short and gets +1 "
                          "at the end."))
    if game.first >= 0:
        facts.append(Fact("First player", f"seat {game.first}", "you" if game.first == viewer
                          else "", "The first player's interrogation is free; in round 2 it "
                          "plays last, giving both tools if it still holds them."))
    asking = game.asking
    if asking is not None and asking.card is not None:
        facts.append(Fact("Interrogation", f"seat {asking.caller} asks: "
                          f"{asking.drawn.question}", "turn",
                          "Law-abiding players must answer truthfully, Corrupt ones must lie. "
                          "A player for whom the answer is already public is not asked."))
    now = _now(game, viewer)
    if now is not None:
        facts.append(now)
    return tuple(facts)


def _known_kinds(
    state: State, knowledge: Knowledge | None
) -> tuple[list[Tool | None], dict[int, Tool | None]]:
    """Gift kinds as the viewer knows them (parallel to game.gifts) and discard kinds by seat
    (the final reveal's, once it opened them)."""
    game = state.game
    gifts, discards = state.gift_kinds, state.discard_kinds
    kinds: list[Tool | None] = list(gifts) if len(gifts) == len(game.gifts) else \
        [None] * len(game.gifts)
    by_seat: dict[int, Tool | None] = {
        d.seat: (discards[i] if len(discards) == len(game.discards) else None)
        for i, d in enumerate(game.discards)
    }
    if knowledge is not None:
        gave = {(seq, receiver): kind for seq, receiver, kind in knowledge.given}
        got = {(seq, giver): kind for seq, giver, kind in knowledge.received}
        for i, g in enumerate(game.gifts):
            if g.giver == knowledge.seat:
                kinds[i] = kinds[i] or gave.get((g.seq, g.receiver))
            elif g.receiver == knowledge.seat:
                kinds[i] = kinds[i] or got.get((g.seq, g.giver))
        if knowledge.discarded is not None:
            by_seat[knowledge.seat] = knowledge.discarded
    return kinds, by_seat


def _tools(state: State, viewer: int | None, knowledge: Knowledge | None) -> Grid:
    game = state.game
    kinds, discarded = _known_kinds(state, knowledge)
    rows, small = [], []
    for s in range(game.n):
        got = [(kinds[i], g.giver) for i, g in enumerate(game.gifts) if g.receiver == s]
        gave = [(kinds[i], g.receiver) for i, g in enumerate(game.gifts) if g.giver == s]
        held = game.held(s)
        holds = f"{held} tool{'s' * (held != 1)}"
        mine = knowledge is not None and s == knowledge.seat
        if knowledge is not None and mine:
            holds = " and ".join(_tool(t) for t in knowledge.holding) or "nothing"
        disc = _tool(discarded[s]) if s in discarded else ""
        you = "you" if s == viewer else ""
        rows.append((Cell(f"seat {s}", you), Cell(holds),
                     Cell("; ".join(f"{_tool(k)} from seat {w}" for k, w in got) or "nothing",
                          "" if got else "muted"),
                     Cell("; ".join(f"{_tool(k)} to seat {w}" for k, w in gave)), Cell(disc)))
        # The compact form (a small screen): seats by number, tools without their article.
        small.append((Cell(str(s), you), Cell(holds.replace("a ", "")),
                      Cell(", ".join(f"{_bare(k)} from {w}" for k, w in got) or "nothing",
                           "" if got else "muted"),
                      Cell(", ".join(f"{_bare(k)} to {w}" for k, w in gave)),
                      Cell(disc.removeprefix("a "))))
    columns = ("Player", "Holds", "Received", "Gave", "Discarded")
    compact = Grid("Tools (seats by number; face down unless you gave or received them)",
                   columns, tuple(small))
    return Grid("Tools (face down unless you gave or received them)", columns, tuple(rows),
                compact)


def _bare(kind: Tool | None) -> str:
    return _tool(kind).removeprefix("a ")


def _interrogations(game: M.Game, viewer: int | None) -> Grid:
    rows = []
    for asking in game.interrogations:
        question = asking.drawn.question if asking.card is not None else "(being drawn)"
        said = {seat: answer for seat, answer, _ in asking.answers}
        cells = []
        for s in range(game.n):
            if s == asking.caller:
                cells.append(Cell("asks", "you" if s == viewer else "muted"))
            elif s in said and asking.card is not None:
                cells.append(Cell(answer_text(asking.drawn, said[s]),
                                  "you" if s == viewer else ""))
            elif s in asking.answerers:
                cells.append(Cell("?", "turn"))
            elif asking.card is not None:
                cells.append(Cell("not eligible", "muted"))
            else:
                cells.append(Cell(""))
        discard = "free" if asking.caller == game.first else "a tool discarded"
        rows.append((Cell(f"seat {asking.caller} ({discard})"), Cell(question), *cells))
    columns = ("Caller", "Question", *(f"seat {s}" for s in range(game.n)))
    return Grid("Interrogations", columns, tuple(rows))


def _private(knowledge: Knowledge) -> tuple[Fact, ...]:
    facts = [Fact("You are", f"seat {knowledge.seat}", "you")]
    if knowledge.team is None:
        facts.append(Fact("Your team", "not dealt yet", "hidden"))
        return tuple(facts)
    facts.append(Fact("Your team", TEAM[knowledge.team], f"side:{TEAM[knowledge.team]}",
                      TEAM_RULES[knowledge.team]))
    held = " and ".join(_tool(t) for t in knowledge.holding) or "nothing"
    facts.append(Fact("You hold", held, explain=TOOL_RULES))
    for _, receiver, kind in knowledge.given:
        facts.append(Fact("You gave", f"{_tool(kind)} to seat {receiver}"))
    for _, giver, got in knowledge.received:
        facts.append(Fact("You received", f"{_tool(got)} from seat {giver}"))
    if knowledge.discarded is not None:
        facts.append(Fact("You discarded", _tool(knowledge.discarded)))
    kinds = [k for _, _, k in knowledge.received]
    if kinds and None not in kinds:
        value = sum(1 if k == MEDKIT else -1 for k in kinds)
        facts.append(Fact("Your value so far", signed(value),
                          explain="Medkits received minus Bullets received."))
    return tuple(facts)


def _breakdown(state: State) -> tuple[tuple[str, ...], tuple[Grid, ...]]:
    """§7: each player's value and the team scores, as lines and grids (empty if not opened)."""
    facts = final_facts(state)
    if facts is None:
        return _roles_only(state)
    score = scoring.score(facts)
    players = []
    for s in range(facts.players):
        got = [f"{TOOL[g.known()]} from seat {g.giver}" for g in facts.gifts if g.receiver == s]
        gave = [f"{TOOL[g.known()]} to seat {g.receiver}" for g in facts.gifts if g.giver == s]
        gone = [TOOL[d.known()] for d in facts.discards if d.seat == s]
        team = facts.roles[s]
        players.append((Cell(f"seat {s}"), Cell(TEAM[team], f"side:{TEAM[team]}"),
                        Cell("; ".join(got) or "nothing"), Cell(signed(score.values[s])),
                        Cell("; ".join(gave)), Cell(", ".join(gone))))
    teams = []
    lines = []
    for team in TEAMS:
        members = scoring.members(facts.roles, team)
        bonus = scoring.bonus(facts.players, facts.leftover, team)
        values = " ".join(signed(score.values[s]) for s in members) or "none"
        teams.append((Cell(TEAM[team], f"side:{TEAM[team]}"), Cell(seat_list(members)),
                      Cell(values), Cell(f"+{bonus}" if bonus else ""),
                      Cell(str(score.team_score(team))), Cell(str(score.team_medkits(team)))))
        extra = " with the short team's +1" if bonus else ""
        medkits = score.team_medkits(team)
        lines.append(f"{TEAM[team]} {score.team_score(team)}{extra} "
                     f"({medkits} Medkit{'s' * (medkits != 1)} received)")
    if score.reason == "medkits":
        lines.append("The scores are tied: the team that received more Medkits wins")
    elif score.reason == "draw":
        lines.append("Scores and Medkits are both tied: a draw")
    grids = (
        Grid("The final reveal: every role and every tool",
             ("Player", "Team", "Received", "Value", "Gave", "Discarded"), tuple(players)),
        Grid("Team scores (value: Medkits received minus Bullets received)",
             ("Team", "Players", "Values", "Short team", "Score", "Medkits"), tuple(teams)),
    )
    return tuple(lines), grids


def _roles_only(state: State) -> tuple[tuple[str, ...], tuple[Grid, ...]]:
    roles = state.roles
    if not roles:
        return (), ()
    rows = tuple((Cell(f"seat {s}"), _team_cell(r)) for s, r in enumerate(roles))
    return (), (Grid("The final reveal: every role", ("Player", "Team"), rows),)


def _team_cell(team: Team | None) -> Cell:
    if team is None:
        return Cell("closed: forfeited", "muted")
    return Cell(TEAM[team], f"side:{TEAM[team]}")


def _result(table_state: TableState[State], viewer: int | None) -> Result | None:
    result, state = table_state.result, table_state.game
    if result is None:
        return None
    roles = state.roles
    team = roles[viewer] if viewer is not None and viewer < len(roles) else None
    side = None if team is None else TEAM[team]
    lines, grids = _breakdown(state)
    return outcome(result, side, str, lines, grids)


def screen(table_state: TableState[State], seat: int | None,
           seat_view: SeatView | State | None) -> Screen:
    """The table as ``seat`` sees it (None: the public picture)."""
    state = table_state.game
    game = state.game
    knowledge = None
    if isinstance(seat_view, SeatView) and seat_view.knowledge.seat == seat:
        knowledge = seat_view.knowledge
    board = (_tools(state, seat, knowledge), _interrogations(game, seat))
    private: tuple[Fact, ...] = ()
    if knowledge is not None:
        private = _private(knowledge)
    elif seat is not None:
        private = (Fact("You are", f"seat {seat}", "you"),
                   Fact("Your team", "not dealt yet", "hidden"))
    return Screen(ABOUT.title, _status(game, seat), board, private, _result(table_state, seat))


# --- history ---------------------------------------------------------------------------------


def _gift_text(seat: int, receivers: list[int]) -> str:
    if len(receivers) == 1:
        return f"seat {seat} gives its last tool face down to seat {receivers[0]}"
    return f"seat {seat} gives both its tools face down, to {seat_list(receivers)}"


def story(before: State | None, record: Record, after: State) -> Event | None:
    """One history line for ``record``; None for a step of the deal or of a draw not yet done."""
    event = _story(before, record, after)
    return None if event is None else replace(event, text=sentence(event.text))


def _story(before: State | None, record: Record, after: State) -> Event | None:
    new = after.game
    old = before.game if before is not None else new
    seq, seat, kind = record.seq, record.seat, record.kind
    if kind in ("key_share", "shuffle", "deal_tokens"):
        if after.act == SETUP or before is None or before.act != SETUP:
            return None
        text = "roles dealt and verified: every seat can read its own card"
        if new.leftover is not None:
            text += (f"; the leftover card is {TEAM[new.leftover]}, so the {TEAM[new.leftover]} "
                     "team is one player short and gets +1 at the end")
        return Event(seq, text)
    if old.first < 0 <= new.first:
        return Event(seq, f"seat {new.first} is drawn to be the first player")
    if kind == "beacon":
        if new.interrogations and new.interrogations[-1].card is not None and \
                old.interrogations and old.interrogations[-1].card is None:
            last = new.interrogations[-1]
            skipped = [s for s in (last.snapshot.answer_order() if last.snapshot else ())
                       if s not in last.answerers]
            text = f"seat {last.caller} draws the question: {last.drawn.question}"
            if skipped:
                text += f" ({seat_list(skipped)} not eligible)"
            if not last.answerers:
                text += "; nobody is eligible to answer"
            return Event(seq, text, 1)
        return None
    if kind == "round_one":
        if len(new.gifts) > len(old.gifts):
            return Event(seq, f"seat {seat} makes a Move: a tool face down to seat "
                         f"{new.gifts[-1].receiver}", 1)
        free = len(new.discards) == len(old.discards)
        how = " (free, as first player)" if free else ", discarding a tool face down"
        return Event(seq, f"seat {seat} calls an Interrogation{how}", 1)
    if kind == "answer":
        asking = new.interrogations[-1]
        said = answer_text(asking.drawn, asking.answers[-1][1])
        return Event(seq, f"seat {seat} answers {said}: {asking.drawn.question}", 1)
    if kind == "round_two":
        receivers = [g.receiver for g in new.gifts[len(old.gifts):]]
        return Event(seq, _gift_text(seat, receivers), 2)
    if kind == "reveal":
        roles = after.roles
        if not roles:
            return None
        teams = "; ".join(f"{TEAM[team]}: {seat_list(scoring.members(roles, team))}"
                          for team in TEAMS)
        closed = [s for s, team in enumerate(roles) if team is None]
        if closed:
            teams += f"; {seat_list(closed)}: closed (forfeited; the count leaves a choice)"
        return Event(seq, f"the final reveal turns every role, tool and discard over. {teams}",
                     why=_score_why(after))
    if kind in ("fraud", "abandon"):
        old_f = before.forfeits if before is not None else ()
        new_f = after.forfeits
        gone = forfeiters(record, new_f[len(old_f):])  # the seats that forfeit with it
        text = forfeit_story(kind, f"seat {seat}", seat_list(gone), len(gone) > 1)
        return Event(seq, sentence(text),
                     why="a seat that cheats or leaves loses the game for its team", tone="bad")
    return None


def _score_why(state: State) -> str:
    facts = final_facts(state)
    if facts is None:
        return ""
    score = scoring.score(facts)
    law, corrupt = score.team_scores
    return (f"scores: Law-abiding {law}, Corrupt {corrupt} (Medkits received minus Bullets "
            f"received, +1 for the short team); Medkits received {score.medkits[0]} and "
            f"{score.medkits[1]}")

