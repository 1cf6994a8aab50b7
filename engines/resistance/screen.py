"""The Resistance as a UI draws it (``engines.viewmodel``): the table's picture and its history.

Theory of operation
-------------------
``screen`` reads the game's state (public game, and after the final reveal every role and
mission card) plus, for a seat, its ``SeatView`` (``view.Knowledge``: role, spies, looks, own
cards). The board is what the online tables show: the mission track (team, Leader, result of
each mission), the vote history (one row per proposal, one column per seat), the plot cards in
front of each player; the private panel is the seat's role and what its looks showed it; the
result names the deciding mission and reveals every role and every mission card.

``story`` tells what one record did (the line mode, replay and the application all print it)
and adds why the score or the vote track moved; a cryptographic step is told once when it is
done ("roles dealt and verified"), so its other records give None.
"""

from __future__ import annotations

from spycraft.crypto import recognition
from spycraft.crypto.records import Record
from spycraft.engines.game import SETUP
from spycraft.engines.resistance import ABOUT
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.model import Game, MissionResult, VoteRecord
from spycraft.engines.resistance.rules import State
from spycraft.engines.resistance.view import Knowledge, SeatView, mission_cards
from spycraft.engines.screens import forfeit_story, forfeiters, outcome, seat_list, sentence
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Cell, Event, Fact, Grid, Result, Screen

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
               "spotlight_shares", "eye_token", "look", "reveal", "ready")


def ending_text(ending: R.Ending) -> str:
    return (f"{SIDE_NAMES.get(ending.winner, ending.winner)} win: "
            f"{REASONS.get(ending.reason, ending.reason.replace('_', ' '))}")


def _play_text(seat: int, card: str, target: object) -> str:
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
    return (f"mission {result.mission} ({seat_list(result.team)}, Leader seat {result.leader}): "
            f"{result.successes} Success, {result.fails} Fail: "
            f"{'failed' if result.failed else 'succeeded'}{shown}")


def _roles_text(state: State) -> str:
    roles = state.roles
    spies = tuple(i for i, role in enumerate(roles) if role == "spy")
    return f"the final reveal: the Spies were {seat_list(spies)}" if spies else ""


def _told(before: State, record: Record, after: State) -> str:
    """What ``record`` did to the game, for a person; "" for a protocol step told together
    with the others of its kind."""
    old, new = before.game, after.game
    who = f"seat {record.seat}"
    kind = record.kind
    lines = []
    if kind in SETUP_KINDS:
        if before.act == SETUP and after.act != SETUP:
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
        approve = f"{seat_list(yes)} approve{'s' * (len(yes) == 1)}" if yes else "nobody approves"
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
        lines.append(f"Leader seat {new.leader} proposes {seat_list(new.proposal.team)} "
                     f"for mission {new.proposal.mission}")
    if new.ending is not None and old.ending is None:
        lines.append(f"game over: {ending_text(new.ending)}")
    if after.roles and not before.roles:
        lines.append(_roles_text(after))
    if lines:
        return "; ".join(line for line in lines if line)
    if kind in QUIET_KINDS:
        return ""
    if kind == "result":
        return "the result is written"
    return f"{who}: {kind.replace('_', ' ')}"


SIDE_TITLES = {R.RESISTANCE: "The Resistance", R.SPIES: "The Spies"}
ROLE_TITLES = {R.RESISTANCE: "Resistance", R.SPIES: "Spy"}
ROLE_RULES = {
    R.RESISTANCE: "You win if three missions succeed. You play Success on every mission you "
    "go on; you do not know who the spies are.",
    R.SPIES: "You win if three missions fail or five teams in a row are rejected. On a mission "
    "you may play Success or Fail; one Fail fails it (two on the fourth mission with seven or "
    "more players).",
}
CATEGORY_TEXT = {
    R.IMMEDIATE: "Immediate: it takes effect as soon as it is dealt.",
    R.KEEP: "Keep: the holder keeps it face up and may play it once, in its moment.",
    R.PERMANENT: "Permanent: it stays in front of its holder until the game ends.",
}
# What each plot card does, in the words of rules section 5.5.
PLOT_RULES = {
    R.STRONG_LEADER: "Play it before the Leader proposes: you become the Leader and propose "
    "this team instead; leadership then goes on clockwise from you.",
    R.NO_CONFIDENCE: "Play it after a team is approved: the team is rejected anyway, and the "
    "rejection counts on the vote track (it may be the fifth).",
    R.OPINION_MAKER: "While you hold it you vote first, and your vote is shown before anyone "
    "else chooses.",
    R.CLOSE_EYE: "Play it after the mission cards are chosen: you secretly see one team "
    "member's mission card (not your own, not one in the spotlight).",
    R.SPOTLIGHT: "Play it before the mission: one team member you name plays the mission card "
    "face up for everyone to see.",
    R.OVERHEARD: "When dealt, you secretly see the role of one of your two neighbours.",
    R.ESTABLISH_CONFIDENCE: "When dealt, you secretly see the Leader's role.",
    R.OPEN_UP: "When dealt, you show your role to a player of your choice.",
    R.TAKE_RESPONSIBILITY: "Play it after a team is proposed: take a plot card from another "
    "player's hand into yours.",
}
VOTE_TRACK_RULES = "Each rejected team moves the vote track; five in a row and the Spies win. " \
    "An approved mission resets it."


def plot_explain(card: str) -> str:
    kind = R.card_type(card)
    return f"{PLOT_RULES[kind]} {CATEGORY_TEXT[R.CARDS[card].category]}"


def _game(state: State | Game) -> Game:
    return state.game if isinstance(state, State) else state


def _roles(state: State | Game) -> tuple[str | None, ...]:
    """Each seat's side once the final reveal opened the roles, else (); None for a forfeiter's
    card that stayed closed."""
    roles = state.roles if isinstance(state, State) else ()
    return tuple(
        None if role is None else R.SPIES if role == recognition.SPY else R.RESISTANCE
        for role in roles
    )


def _seat_tone(seat: int, viewer: int | None, turn: tuple[int, ...] = ()) -> str:
    if seat == viewer:
        return "you"
    return "turn" if seat in turn else ""


def waiting(game: Game) -> tuple[int, ...]:
    """The seats the game waits for now (none while it waits for randomness or the end)."""
    if game.window is not None:
        return (game.window_seat(),)
    if game.phase in (R.PLOT_DEAL, R.PROPOSE):
        return (game.leader,)
    if game.phase == R.PLOT_RESOLVE and game.to_resolve:
        return (game.to_resolve[0][1],)
    if game.phase == R.VOTE:
        return game.voters
    if game.phase == R.MISSION_PLAY:
        return game.mission_players()
    return ()


def _status(game: Game, viewer: int | None) -> tuple[Fact, ...]:
    variants = [name for name, on in (("The Plot Thickens", game.plot),
                                      ("Targeting", game.targeting),
                                      ("Blind Spies", game.blind_spies)) if on]
    facts = [
        Fact("Players", f"{game.n}, of whom {R.spies(game.n)} are spies"
             + (f"; {', '.join(variants)}" if variants else "")),
        Fact("Score", f"Resistance {game.successes}, Spies {game.failures}",
             explain="Three successful missions win for the Resistance, three failed ones "
             "for the Spies."),
    ]
    if game.ending is None and game.phase != R.FIRST_LEADER:
        facts.append(Fact("Round", f"{game.round} of 5"))
        facts.append(Fact("Leader", f"seat {game.leader}", _seat_tone(game.leader, viewer)))
    facts.append(Fact("Rejected in a row", f"{game.vote_track} of {R.MAX_REJECTIONS}",
                      "bad" if game.vote_track == R.MAX_REJECTIONS - 1 else "",
                      VOTE_TRACK_RULES))
    if game.ending is not None:
        facts.append(Fact("Game over", _ending(game.ending)))
        return tuple(facts)
    turn = waiting(game)
    now = PHASE_TEXT.get(game.phase, "the game goes on")
    if turn:
        mine = viewer in turn
        who = "you" if mine and len(turn) == 1 else seat_list(turn)
        now = f"{now} ({who})" if not mine or len(turn) == 1 else f"{now} ({who}, you too)"
        facts.append(Fact("Now", now, "turn" if mine else ""))
    else:
        facts.append(Fact("Now", now))
    if game.window is not None:
        kind = R.WINDOW_CARD[game.window.phase]
        facts.append(Fact("Plot card", R.TITLES[kind], explain=PLOT_RULES[kind]))
    for card in game.drawn_cards:
        facts.append(Fact("Drawn, to deal", R.TITLES[R.card_type(card)],
                          explain=plot_explain(card)))
    return tuple(facts)


def _ending(ending: R.Ending) -> str:
    side = SIDE_NAMES.get(ending.winner, "nobody")
    return sentence(f"{side} win: {REASONS.get(ending.reason, 'the game ended')}")


MISSION_UNDER_WAY = (R.MISSION_PLAY, R.MISSION_REVEAL, R.WINDOW_SPOTLIGHT, R.WINDOW_CLOSE_EYE)


def _mission_cell(game: Game, mission: int) -> Cell:
    result = game.results[mission - 1]
    if result is None:
        current = game.proposal is not None and game.proposal.mission == mission and \
            game.phase in MISSION_UNDER_WAY
        return Cell("on the way" if current else "", "turn" if current else "")
    fails = "1 Fail" if result.fails == 1 else f"{result.fails} Fails"
    text = f"{'failed' if result.failed else 'succeeded'} ({fails})"
    for seat, card in result.spotlight:
        text += f"; seat {seat} in the spotlight played {card.capitalize()}"
    return Cell(text, "bad" if result.failed else "good")


def _team_cell(game: Game, mission: int, viewer: int | None, compact: bool = False) -> Cell:
    """The team of a mission once it is known (the one that went, the one on the way, or the
    one proposed, said so), else how many go; ``compact``: seats by number, a star for two
    Fails."""
    result = game.results[mission - 1]
    twice = R.fails_needed(game.n, mission) == 2
    two = ("*" if compact else "; 2 Fails to fail") if twice else ""
    proposal = game.proposal
    if result is not None:
        team, note = result.team, ""
    elif proposal is not None and proposal.mission == mission and game.phase != R.PROPOSE:
        team, note = proposal.team, "" if game.phase in MISSION_UNDER_WAY else " (proposed)"
    else:
        return Cell(f"{R.team_size(game.n, mission)}{'' if compact else ' players'}{two}")
    named = _team(team) if compact else seat_list(team)
    return Cell(f"{named}{note}{two}", "you" if viewer in team else "")


def _missions(game: Game, viewer: int | None) -> Grid:
    rows, small = [], []
    for m in R.MISSIONS:
        result = game.results[m - 1]
        leader = Cell("") if result is None else Cell(f"seat {result.leader}",
                                                      _seat_tone(result.leader, viewer))
        rnd = Cell("") if result is None else Cell(str(result.round))
        outcome = _mission_cell(game, m)
        rows.append((Cell(str(m)), _team_cell(game, m, viewer), rnd, leader, outcome))
        # The compact form (a small screen): seats by number, a star for two Fails.
        small.append((Cell(str(m)), _team_cell(game, m, viewer, compact=True), rnd,
                      Cell(leader.text.removeprefix("seat "), leader.tone), outcome))
    columns = ("Mission", "Team", "Round", "Leader", "Result")
    twice = any(R.fails_needed(game.n, m) == 2 for m in R.MISSIONS)
    title = "Missions (seats by number" + ("; * fails only with 2 Fails)" if twice else ")")
    return Grid("Missions", columns, tuple(rows), Grid(title, columns, tuple(small)))


def _vote_cell(vote: bool | None) -> Cell:
    if vote is None:
        return Cell("?", "hidden")
    return Cell("yes", "good") if vote else Cell("no", "bad")


def _team(team: tuple[int, ...]) -> str:
    return " ".join(map(str, team))


def _vote_result(record: VoteRecord) -> Cell:
    if record.no_confidence is not None:
        return Cell(f"approved, then rejected by No Confidence (seat {record.no_confidence})",
                    "bad")
    return Cell("approved", "good") if record.approved else Cell("rejected", "bad")


def _votes(game: Game, viewer: int | None) -> Grid:
    # Compact, as vote grids are drawn at the table: a column per seat, "yes" or "no".
    columns = ("Round", "Mission", "Leader", "Team", *(f"{s}" for s in range(game.n)), "Result")
    rows = []
    for record in game.vote_log:
        rows.append((
            Cell(str(record.round)), Cell(str(record.proposal.mission)),
            Cell(f"seat {record.leader}", _seat_tone(record.leader, viewer)),
            Cell(_team(record.proposal.team), "you" if viewer in record.proposal.team else ""),
            *(_vote_cell(v) for v in record.votes), _vote_result(record),
        ))
    if game.proposal is not None and game.phase in (R.WINDOW_TAKE_RESPONSIBILITY, R.VOTE):
        votes = game.votes if game.votes else (None,) * game.n
        rows.append((
            Cell(str(game.round)), Cell(str(game.proposal.mission)),
            Cell(f"seat {game.leader}", _seat_tone(game.leader, viewer)),
            Cell(_team(game.proposal.team), "you" if viewer in game.proposal.team else ""),
            *(_vote_cell(v) for v in votes), Cell("voting", "turn"),
        ))
    return Grid("Votes", columns, tuple(rows))


def _plot(game: Game, viewer: int | None) -> Grid:
    rows = tuple(
        (Cell(f"seat {s}", _seat_tone(s, viewer)),
         Cell(", ".join(R.TITLES[R.card_type(c)] for c in hand) or "none"))
        for s, hand in enumerate(game.hands)
    )
    return Grid(f"Plot cards in front of each player ({len(game.deck)} left in the deck)",
                ("Player", "Cards"), rows)


def _looks(game: Game, viewer: int | None) -> Grid:
    rows = tuple(
        (Cell(str(look.round)),
         Cell(f"seat {look.viewer}", _seat_tone(look.viewer, viewer)),
         Cell(f"seat {look.subject}'s {'role' if look.what == 'role' else 'mission card'}"),
         Cell(R.TITLES[R.card_type(look.card)]))
        for look in game.looks
    )
    return Grid("Who saw what (only the viewer knows what was shown)",
                ("Round", "Viewer", "Saw", "Because of"), rows)


def _private(knowledge: Knowledge, game: Game) -> tuple[Fact, ...]:
    side = R.SPIES if knowledge.spy else R.RESISTANCE
    facts = [
        Fact("You are", f"seat {knowledge.seat}", "you"),
        Fact("Your role", ROLE_TITLES[side], f"side:{side}", ROLE_RULES[side]),
    ]
    if knowledge.spy:
        others = tuple(s for s in knowledge.known_spies if s != knowledge.seat)
        if others:
            facts.append(Fact("The other spies", seat_list(others), f"side:{R.SPIES}"))
        elif game.blind_spies:
            facts.append(Fact("The other spies", "unknown: Blind Spies, spies do not know "
                              "each other", "hidden"))
    for subject, spy in knowledge.seen_roles:
        role = ROLE_TITLES[R.SPIES if spy else R.RESISTANCE]
        facts.append(Fact("You saw", f"seat {subject} is {role}"))
    for rnd, subject, card in knowledge.seen_cards:
        facts.append(Fact("You saw", f"seat {subject}'s mission card in round {rnd}: "
                          f"{card.capitalize()}"))
    for rnd, card in sorted(knowledge.own_cards):
        facts.append(Fact("You played", f"{card.capitalize()} in round {rnd}"))
    if 0 <= knowledge.seat < len(game.hands):
        for card in game.hands[knowledge.seat]:
            facts.append(Fact("Your plot card", R.TITLES[R.card_type(card)],
                              explain=plot_explain(card)))
    return tuple(facts)


def _reveal(state: State | Game, game: Game) -> tuple[Grid, ...]:
    roles = _roles(state)
    if not roles or not isinstance(state, State):
        return ()
    cards = mission_cards(state) or {}
    played = [r for r in game.results if r is not None]
    columns = ("Player", "Role", *(f"Mission {r.mission}" for r in played))
    rows = []
    for s in range(game.n):
        role = roles[s]
        cells = [Cell(f"seat {s}"), Cell("closed: forfeited", "muted") if role is None
                 else Cell(ROLE_TITLES[role], f"side:{role}")]
        for result in played:
            if s not in result.team:
                cells.append(Cell(""))
                continue
            card = cards.get((result.round, s))
            cells.append(Cell(card.capitalize(), "bad" if card == R.FAIL else "good")
                         if card else Cell("?", "hidden"))
        rows.append(tuple(cells))
    return (Grid("The final reveal: every role and every mission card", columns, tuple(rows)),)


def _deciding(game: Game) -> tuple[str, ...]:
    if game.ending is None:
        return ()
    lines = [_ending(game.ending)]
    if game.ending.reason in ("three_successes", "three_failures"):
        last = max((r for r in game.results if r is not None), key=lambda r: r.round)
        lines.append(f"The deciding {_mission_text(last)}")
    elif game.vote_log:
        last_vote = game.vote_log[-1]
        team = seat_list(last_vote.proposal.team)
        lines.append(f"The fifth rejected team: Leader seat {last_vote.leader} proposed "
                     f"{team} for mission {last_vote.proposal.mission}")
    return tuple(lines)


def _result(table_state: TableState[State] | Game, game: Game, viewer: int | None
            ) -> Result | None:
    if not isinstance(table_state, TableState) or table_state.result is None:
        return None
    result = table_state.result
    state = table_state.game
    roles = _roles(state)
    side = roles[viewer] if viewer is not None and viewer < len(roles) else None
    return outcome(result, side, lambda name: SIDE_TITLES.get(name, name),
                   _deciding(game), _reveal(state, game))


def screen(table_state: TableState[State] | Game, seat: int | None,
           seat_view: SeatView | State | None) -> Screen:
    """The table as ``seat`` sees it (None: the public picture, for spectators and replays);
    the rulebook's bare ``Game`` draws too (the rules' own tests)."""
    state = table_state.game if isinstance(table_state, TableState) else table_state
    game = _game(state)
    board = [_missions(game, seat), _votes(game, seat)]
    if game.plot:
        board.append(_plot(game, seat))
        if game.looks:
            board.append(_looks(game, seat))
    private: tuple[Fact, ...] = ()
    if isinstance(seat_view, SeatView) and seat_view.knowledge.seat == seat:
        private = _private(seat_view.knowledge, game)
    elif seat is not None:
        private = (Fact("You are", f"seat {seat}", "you"),
                   Fact("Your role", "not dealt yet", "hidden"))
    return Screen(ABOUT.title, _status(game, seat), tuple(board), private,
                  _result(table_state, game, seat))


# --- history ---------------------------------------------------------------------------------


def _new_result(old: Game, new: Game) -> MissionResult | None:
    return next((r for r, o in zip(new.results, old.results) if r is not None and o is None),
                None)


def _why(old: Game, new: Game) -> str:
    """Why the score or the vote track moved with this record."""
    result = _new_result(old, new)
    if result is not None:
        need = R.fails_needed(new.n, result.mission)
        if result.failed:
            return (f"{result.fails} Fail card{'s' * (result.fails != 1)} played; "
                    f"{need} {'is' if need == 1 else 'are'} enough to fail mission "
                    f"{result.mission}: a point for the Spies")
        return (f"{'no Fail card' if result.fails == 0 else f'only {result.fails} Fail'}: "
                f"mission {result.mission} succeeds, a point for the Resistance")
    if new.vote_track > old.vote_track:
        last = new.vote_log[-1] if new.vote_log else None
        if last is not None and last.no_confidence is not None and last.approved:
            cause = f"seat {last.no_confidence} played No Confidence on the approved team"
        else:
            needed = R.approvals_needed(new.n)
            cause = f"the team got fewer than {needed} approvals"
        return (f"{cause}: {new.vote_track} rejected in a row; a fifth in a row and the Spies "
                "win")
    return ""


def _forfeited(before: State | None, after: State) -> list[int]:
    old = before.forfeits if before is not None else ()
    return list(after.forfeits[len(old):])  # the seats that forfeited with this record


def story(before: State | None, record: Record, after: State) -> Event | None:
    """One history line for ``record``, or None for a step told later (or never) as a whole."""
    old, new = _game(before) if before is not None else None, _game(after)
    if record.kind in ("fraud", "abandon"):
        gone = forfeiters(record, _forfeited(before, after))
        text = forfeit_story(record.kind, f"seat {record.seat}",
                             seat_list(gone) if gone else "a seat", len(gone) > 1)
        return Event(record.seq, sentence(text), new.round,
                     "a seat that cheats or leaves loses the game for its side", "bad")
    if record.kind == "result":
        return None
    if before is None or old is None:
        return None
    text = _told(before, record, after)
    if not text:
        return None
    result = _new_result(old, new)
    tone = "" if result is None else "bad" if result.failed else "good"
    if new.ending is not None and old.ending is None:
        tone = f"side:{new.ending.winner}"
    return Event(record.seq, sentence(text), old.round, _why(old, new), tone)
