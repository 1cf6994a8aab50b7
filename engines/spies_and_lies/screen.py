"""Stratego: Spies & Lies as a UI draws it (``engines.viewmodel``): the board and its history.

Theory of operation
-------------------
``screen`` reads the public ``Board`` and, for a seat, its ``SeatView`` (its own deployment and
Sergeant token). The board is the Double Agent's track, the four Mission cards of each side (own
hidden ranks shown to their owner only; for a hidden enemy card, the ranks still possible given
its order, its Intel token and the Intel card, as a careful player would work them out) and each
side's soldiers. Infiltration markers and Deception tokens are in the status; every ability and
round effect carries its rules text in ``Fact.explain``.

``story`` tells what one record did (the line mode, replay and the application all print it)
and puts why the markers or the Double Agent moved into ``Event.why``: a right guess, a
soldier's ability, a Deception token that fooled the guesser, an infiltration named as such
(rules §6).
"""

from __future__ import annotations

from spycraft.crypto.records import Record
from spycraft.engines.screens import forfeit_story, forfeiters, outcome, sentence
from spycraft.engines.spies_and_lies import ABOUT, model
from spycraft.engines.spies_and_lies.model import INTEL, SIDES, Board, Card, rank_label
from spycraft.engines.spies_and_lies.rules import State
from spycraft.engines.spies_and_lies.view import SeatView
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Cell, Event, Fact, Grid, Screen


def intel_text(card: int) -> str:
    """An Intel card as people read it: its name and the ranks it shows (the id is for records)."""
    intel = INTEL[card]
    return f"{intel.name} ({' '.join(map(str, sorted(intel.shows)))})"


ABILITIES = {
    1: "the Spy: +1 IP and a Deception token; an enemy Marshal revealed later this day retires",
    2: "the Scout: +2 IP, and a right guess of its side is worth 4 IP this day",
    3: "the Miner: +3 IP; an enemy Bomb revealed later this day retires",
    4: "the Sergeant: +4 IP",
    5: "the Lieutenant: the Double Agent moves 1 space toward the enemy flag",
    6: "the Captain: 6 IP or the ability of an exhausted soldier",
    7: "the Bomb: the enemy's next revealed soldier retires, doubled if guessed right",
    8: "the Colonel: +8 IP, counting on past 10",
    9: "the General: the Double Agent moves 2 spaces toward the enemy flag",
    10: "the Marshal: 10 IP, or 5 IP taken from the enemy",
}


def _why(before: Board, after: Board, record: Record) -> list[str]:
    """Why the score moved, in the rulebook's words: a right guess, a soldier's ability, a
    Deception token that fooled the guesser, an infiltration (rules §6)."""
    reasons = []
    kind, seat = record.kind, record.seat
    if kind not in ("reveal", "captain", "marshal"):
        return []
    card = after.cards[seat][_last_revealed(after, seat)]
    if kind == "reveal":
        guesser = model.other(seat)
        if card.guess == card.rank:
            points = 4 if before.flags[guesser].scout else 2
            reasons.append(f"{SIDES[guesser]} guessed right: +{points} IP")
        elif card.state == "activated" and card.rank is not None:
            reasons.append(f"{SIDES[seat]} activates {ABILITIES[card.rank]}")
        else:
            reasons.append(f"{SIDES[seat]}'s {rank_label(card.rank or 0)} retires unused")
    elif kind == "captain":
        copy = record.body["copy"]
        reasons.append(f"{SIDES[seat]}'s Captain takes 6 IP" if copy == 0
                       else f"{SIDES[seat]}'s Captain copies {ABILITIES[copy]}")
    else:
        reasons.append(f"{SIDES[seat]}'s Marshal takes "
                       f"{'5 IP from the enemy' if record.body['split'] else '10 IP'}")
    step_over = (after.step, after.phase) != (before.step, before.phase)
    if before.placed and card.guess != card.rank and step_over:
        reasons.append(f"{SIDES[seat]}'s Deception token fooled the guess: +4 IP")
    split_victim = (
        model.other(seat) if kind == "marshal" and record.body.get("split") else None
    )
    for side in (0, 1):
        fell = after.markers[side] < before.markers[side] and side != split_victim
        ten_from_zero = kind == "marshal" and side == seat and not record.body.get("split")
        if fell or (ten_from_zero and after.markers[side] == before.markers[side]):
            reasons.append(
                f"{SIDES[side]} infiltrates: its markers reach 10 and start again at "
                f"{after.markers[side]}, and the Double Agent moves toward "
                f"{SIDES[model.other(side)]}'s flag"
            )
    if split_victim is not None:
        reasons.append(f"{SIDES[split_victim]} loses 5 IP to the Marshal")
    return reasons


def _draw(after: Board) -> str:
    """What a completed beacon round drew, read from the board it produced."""
    if after.phase == "layout" and after.current is not None:
        return f"Intel card: {intel_text(after.current)}"
    ex = [" and ".join(map(rank_label, after.exhausted[s])) for s in (0, 1)]
    if after.day == 1:
        return (
            f"setup: {intel_text(after.old_intel[0])} goes to Old Intel; Red exhausts {ex[0]}, "
            f"Blue exhausts {ex[1]}; {SIDES[after.sp]} starts"
        )
    return f"end of day {after.day - 1}: Red exhausts {ex[0]}, Blue exhausts {ex[1]}"


def _kept_back(day: Board) -> str:
    """Who kept which soldiers back on ``day`` (public once its four cards are face up: the
    hand less what was deployed), "" while a card is still hidden."""
    parts = []
    for seat in (0, 1):
        cards = day.cards[seat]
        if len(cards) != 4 or any(c.rank is None for c in cards):
            return ""
        deployed = {c.rank for c in cards}
        kept = [r for r in model.hand(day, seat) if r not in deployed]
        parts.append(f"{SIDES[seat]} kept back {' '.join(map(str, kept)) or 'nothing'}")
    return f" ({'; '.join(parts)})"


def _last_revealed(board: Board, seat: int) -> int:
    return max(i for i, c in enumerate(board.cards[seat]) if c.rank is not None)


def reveal_text(after: Board, record: Record) -> str:
    """``Blue reveals M1: 5 Lieutenant (correct)``: what a reveal showed, without its effects."""
    index = _last_revealed(after, record.seat)
    card = after.cards[record.seat][index]
    verdict = "correct" if card.guess == card.rank else "wrong"
    told = ""
    if card.rank == model.SERGEANT and card.token is not None and after.current is not None:
        lied = card.token != model.forced_token(card.rank, after.current)  # rules §4.2
        told = f"; its Intel token {'lied' if lied else 'told the truth'}"
    return (f"{SIDES[record.seat]} reveals M{index + 1}: {rank_label(record.body['rank'])} "
            f"({verdict}){told}")


def choice_text(record: Record) -> str:
    """The choice of an activated Captain or Marshal."""
    who, body = SIDES[record.seat], record.body
    if record.kind == "captain":
        choice = "6 IP" if body["copy"] == 0 else f"copy {rank_label(body['copy'])}"
        return f"{who}'s Captain: {choice}"
    return f"{who}'s Marshal: {'take 5 IP from the enemy' if body['split'] else '10 IP'}"


TRACK = ("Red flag", "Red wall", "-3", "-2", "-1", "centre", "+1", "+2", "+3", "Blue wall",
         "Blue flag")
DA_RULES = ("The Double Agent walks from the centre: Red pushes it toward Blue's flag (+), Blue "
            "toward Red's (-). Each infiltration moves it one space, or more with the "
            "Lieutenant (1) and the General (2). It stops on the enemy wall for the rest of the "
            "step; a move from that wall captures the flag and wins. After day 3 the side it "
            "stands on wins.")
MARKER_RULES = ("Infiltration points: a right guess gives 2 (4 with an active Scout), soldiers "
                "give theirs when activated, a Deception token that fooled the guess gives 4. "
                "Reaching 10 is an infiltration: the marker starts again at 0 (the Colonel keeps "
                "what is past 10) and the Double Agent moves one space toward the enemy flag.")
DT_RULES = ("A Deception token may be put on your card before the enemy guesses it: if the guess "
            "is wrong you gain 4 points. Each side starts with one; the Spy takes one from the "
            "supply.")
INTEL_RULES = ("Every card shown on the Intel card must carry an Intel token and every other "
               "card none; only the Sergeant (4) may lie either way.")
FLAG_RULES = {
    "spy": ("Spy active", "an enemy Marshal this side reveals later this day retires unused"),
    "scout": ("Scout active", "this side's right guesses score 4 instead of 2 this day"),
    "miner": ("Miner active", "an enemy Bomb this side reveals later this day retires unused"),
    "bomb": ("Bomb pending", ("the next card this side reveals retires unused; a right guess "
                              "there makes the enemy exhaust two soldiers at the end of the day")),
    "double": ("Double damage", "this side exhausts two soldiers at the end of the day"),
}
STAGE_TEXT = {
    "deceive": "may put a Deception token on",
    "guess": "guesses",
    "reveal": "shows",
    "captain": "chooses what the Captain does with",
    "marshal": "chooses what the Marshal does with",
}
PHASE_TEXT = {
    "setup": "drawing the setup",
    "deploy": "both sides deploy four soldiers face down",
    "intel": "drawing the Intel card",
    "layout": "both sides lay their Intel tokens",
    "tokens": "the Intel tokens are shown",
    "exhaustion": "drawing the soldiers exhausted for the next day",
    "over": "the game is over",
}


def _acting(board: Board) -> tuple[int, ...]:
    """The sides the board waits for now."""
    if board.phase == "deploy":
        return tuple(s for s in (0, 1) if not board.cards[s])
    if board.phase in ("layout", "tokens"):
        return (0, 1)
    if board.phase == "mission":
        d, g = model.defender(board), model.guesser(board)
        if board.stage == "guess":
            return (g,)
        return (d,)
    return ()


def _now(board: Board, viewer: int | None) -> Fact:
    if board.phase != "mission":
        acting = _acting(board)
        mine = viewer in acting
        return Fact("Now", PHASE_TEXT.get(board.phase, board.phase), "turn" if mine else "")
    d, index = model.defender(board), model.target_index(board)
    actor = model.guesser(board) if board.stage == "guess" else d
    verb = STAGE_TEXT.get(board.stage, "plays")
    whose = f"{SIDES[d]}'s" if actor != d else "its"
    text = f"step {board.step} of {model.STEPS}: {SIDES[actor]} {verb} {whose} card {index + 1}"
    return Fact("Now", text, "turn" if actor == viewer else "")


def _status(board: Board, viewer: int | None) -> tuple[Fact, ...]:
    facts = [
        Fact("Day", f"{board.day} of {model.LAST_DAY}; {SIDES[board.sp]} guesses first"),
        Fact("Double Agent", _da_text(board.da), _da_tone(board.da), DA_RULES),
        Fact("Infiltration", f"Red {board.markers[0]} of 10, Blue {board.markers[1]} of 10",
             explain=MARKER_RULES),
        Fact("Deception tokens", f"Red {board.dt[0]}, Blue {board.dt[1]}; "
             f"{board.supply} left in the supply", explain=DT_RULES),
    ]
    if board.current is not None:
        facts.append(Fact("Intel card", intel_text(board.current), explain=INTEL_RULES))
    if board.old_intel:
        facts.append(Fact("Old Intel", "; ".join(intel_text(c) for c in board.old_intel),
                          explain="Intel cards already used; the others are still in the deck."))
    for side in (0, 1):
        flags = board.flags[side]
        for name, (label, rules) in FLAG_RULES.items():
            if getattr(flags, name):
                facts.append(Fact(f"{SIDES[side]}: {label}", rules, f"side:{SIDES[side]}",
                                  rules))
    if board.phase != "over":
        facts.append(_now(board, viewer))
    return tuple(facts)


def _da_text(da: int) -> str:
    if da == 0:
        return "in the centre"
    side = "Blue" if da > 0 else "Red"
    wall = "on Blue's wall" if da == model.ENEMY_WALL else "on Red's wall" \
        if da == -model.ENEMY_WALL else f"{abs(da)} space{'s' * (abs(da) != 1)} into {side}'s half"
    return f"{wall} ({da:+d}), good for {'Red' if da > 0 else 'Blue'}"


def _da_tone(da: int) -> str:
    return "" if da == 0 else "side:Red" if da > 0 else "side:Blue"


def _track(board: Board) -> Grid:
    cells = tuple(
        Cell("Double Agent", _da_tone(board.da)) if position == board.da
        else Cell("captured", f"side:{SIDES[board.captured_by]}")
        if board.captured_by is not None and abs(position) == 5
        and (position > 0) == (board.captured_by == model.RED)
        else Cell("")
        for position in range(-5, 6)
    )
    return Grid("The Double Agent's track", TRACK, (cells,))


def _possible(board: Board, side: int) -> tuple[frozenset[int], ...] | None:
    """Per Mission card of ``side``, the ranks that a legal deployment agreeing with everything
    public could put there (None if no legal deployment agrees: a cheat the reveal will prove)."""
    cards = board.cards[side]
    if len(cards) != 4:
        return None
    fits = model.consistent(model.hand(board, side), [c.rank for c in cards],
                            [c.token for c in cards], board.current)
    if not fits:
        return None
    return tuple(frozenset(d[i] for d in fits) for i in range(4))


def _card_cell(card: Card, own: int | None, possible: frozenset[int] | None) -> Cell:
    parts = []
    if card.rank is not None:
        state = {"activated": "activated", "retired": "retired", "shown": "shown at the end",
                 "hidden": "shown"}[card.state]
        parts.append(f"{rank_label(card.rank)}, {state}")
        tone = "muted" if card.state == "retired" else ""
    elif own is not None:
        parts.append(f"your {rank_label(own)}, face down")
        tone = "you"
    elif possible is not None:
        parts.append("face down: " + (" or ".join(map(str, sorted(possible)))
                                      if len(possible) <= 4 else
                                      f"one of {' '.join(map(str, sorted(possible)))}"))
        tone = "hidden"
    else:
        parts.append("face down")
        tone = "hidden"
    if card.token is not None:
        parts.append("Intel token" if card.token else "no Intel token")
    if card.deceived:
        parts.append("Deception token")
    if card.guess is not None:
        parts.append(f"guessed {rank_label(card.guess)}")
    return Cell("; ".join(parts), tone)


def _missions(board: Board, viewer: int | None, own: tuple[int, ...] | None) -> Grid:
    rows = []
    for side in (0, 1):
        cards = board.cards[side]
        head = Cell(SIDES[side] + (" (you)" if side == viewer else ""),
                    "you" if side == viewer else f"side:{SIDES[side]}")
        if not cards:
            rows.append((head, *(Cell("not deployed yet", "hidden") for _ in range(4))))
            continue
        mine = own if side == viewer and own is not None and len(own) == 4 else None
        possible = None if mine is not None else _possible(board, side)
        rows.append((head, *(
            _card_cell(card, mine[i] if mine else None, possible[i] if possible else None)
            for i, card in enumerate(cards)
        )))
    columns = ("Side", "Mission card 1", "Mission card 2", "Mission card 3", "Mission card 4")
    compact = Grid(f"Day {board.day}: the Mission cards M1 to M4",
                   ("Side", "M1", "M2", "M3", "M4"), tuple(rows))
    return Grid(f"Day {board.day}: the Mission cards", columns, tuple(rows), compact)


def _soldiers(board: Board) -> Grid:
    rows = tuple(
        (Cell(SIDES[side], f"side:{SIDES[side]}"),
         Cell(", ".join(rank_label(r) for r in board.exhausted[side]) or "none"),
         Cell(" ".join(map(str, model.hand(board, side)))))
        for side in (0, 1)
    )
    return Grid("Soldiers", ("Side", "Exhausted this day", "In hand (ranks)"), rows)


def _private(view: SeatView, board: Board) -> tuple[Fact, ...]:
    side = view.seat
    facts = [Fact("You play", SIDES[side], "you")]
    if view.deployment is not None and len(view.deployment) == 4:
        shown = ", ".join(f"card {i} {rank_label(r)}"
                          for i, r in enumerate(view.deployment, start=1))
        facts.append(Fact("Your deployment", shown, "you"))
        for rank in view.deployment:
            facts.append(Fact(rank_label(rank), ABILITIES[rank].split(": ", 1)[1],
                              explain=ABILITIES[rank]))
        if model.SERGEANT in view.deployment and view.sergeant_token is not None \
                and board.current is not None:
            due = model.forced_token(model.SERGEANT, board.current)
            truth = "the truth" if view.sergeant_token == due else "a lie"
            placed = "an Intel token" if view.sergeant_token else "no Intel token"
            facts.append(Fact("Your Sergeant", f"carries {placed}: {truth}", "hidden",
                              INTEL_RULES))
    elif board.phase == "deploy":
        facts.append(Fact("Your deployment", "not chosen yet", "turn"))
    return tuple(facts)


def _reveal(board: Board) -> tuple[Grid, ...]:
    if not any(board.cards):
        return ()
    rows = tuple(
        (Cell(SIDES[side], f"side:{SIDES[side]}"),
         *(Cell(rank_label(c.rank) if c.rank is not None else "never opened",
                "" if c.rank is not None else "hidden") for c in board.cards[side]))
        for side in (0, 1)
    )
    columns = ("Side", "Mission card 1", "Mission card 2", "Mission card 3", "Mission card 4")
    return (Grid(f"The final reveal: the deployments of day {board.day}", columns, rows),)


def _ending(board: Board) -> tuple[str, ...]:
    lines = [f"The Double Agent ends {_da_text(board.da)}",
             f"Infiltration: Red {board.markers[0]}, Blue {board.markers[1]}"]
    if board.captured_by is not None:
        loser = SIDES[model.other(board.captured_by)]
        lines.insert(0, f"{SIDES[board.captured_by]} captured {loser}'s flag")
    return tuple(lines)


def screen(table_state: TableState[State], seat: int | None,
           seat_view: SeatView | State | None) -> Screen:
    """The board as ``seat`` sees it (None: the public picture)."""
    board = table_state.game.game
    own = seat_view if isinstance(seat_view, SeatView) and seat_view.seat == seat else None
    deployment = own.deployment if own is not None else None
    grids = (_track(board), _missions(board, seat, deployment), _soldiers(board))
    private = _private(own, board) if own is not None else \
        (Fact("You play", SIDES[seat], "you"),) if seat in (0, 1) else ()
    result = table_state.result
    end = None
    if result is not None:
        side = SIDES[seat] if seat in (0, 1) else None
        words = [sentence(result.reason), *_ending(board)]
        end = outcome(result, side, str, words, _reveal(board))
    return Screen(ABOUT.title, _status(board, seat), grids, private, end)


# --- history ---------------------------------------------------------------------------------


def _moves(before: Board, after: Board) -> list[str]:
    """The markers and the Double Agent before and after, in words."""
    moved = []
    for s in (0, 1):
        if before.markers[s] != after.markers[s]:
            moved.append(f"{SIDES[s]} {before.markers[s]} to {after.markers[s]}")
    if before.da != after.da:
        moved.append(f"Double Agent {before.da:+d} to {after.da:+d}")
    if after.captured_by is not None and before.captured_by is None:
        moved.append(f"{SIDES[after.captured_by]} captures the enemy flag")
    return moved


def story(before: State | None, record: Record, after: State) -> Event | None:
    """One history line for ``record``; None for a step that tells nothing yet (a beacon value
    before the round's draw is complete, the result record)."""
    if before is None:
        return None
    old, new = before.game, after.game
    if record.kind == "result":
        return None
    why = ""
    if record.kind in ("reveal", "captain", "marshal"):
        text = reveal_text(new, record) if record.kind == "reveal" else choice_text(record)
        reasons = _why(old, new, record)
        moved = _moves(old, new)
        why = "; ".join(reasons) + (f" ({'; '.join(moved)})" if moved else "")
    elif record.kind in ("fraud", "abandon"):
        who = SIDES[record.seat] if record.seat in (0, 1) else f"seat {record.seat}"
        gone = forfeiters(record, [s for s in after.forfeits if s not in before.forfeits])
        text = forfeit_story(record.kind, who, " and ".join(SIDES[s] for s in gone),
                             len(gone) > 1)
    else:
        text = _told(old, new, record)
    if not text:
        return None
    tone = ""
    if new.captured_by is not None and old.captured_by is None:
        tone = f"side:{SIDES[new.captured_by]}"
    return Event(record.seq, sentence(text), new.day, why, tone)


def _told(b: Board, a: Board, rec: Record) -> str:
    """What one record did, in a line (a reveal and a Captain's or Marshal's choice are told
    by ``story`` itself, with why the score moved)."""
    who = SIDES[rec.seat] if rec.seat in (0, 1) else f"seat {rec.seat}"
    body = rec.body
    kind = rec.kind
    if kind == "beacon":  # told once, by the draw the last value completes
        if a.phase in ("setup", "intel", "exhaustion"):
            return ""
        return _draw(a) + (_kept_back(b) if a.day == b.day + 1 else "")
    if kind == "deploy":
        return f"{who} commits its day {a.day} deployment"
    if kind == "layout":
        return f"{who} commits its Intel tokens"
    if kind == "tokens":
        marks = " ".join("●" if t else "–" for t in body["tokens"])
        return f"{who} shows tokens {marks}"
    if kind == "deceive":
        where = f"M{model.target_index(a) + 1}"
        return f"{who} {'places a DT on' if body['place'] else 'places no DT on'} its {where}"
    if kind == "guess":
        where = f"{SIDES[model.defender(a)]}'s M{model.target_index(a) + 1}"
        return f"step {a.step}: {who} guesses {rank_label(body['rank'])} at {where}"
    if kind == "final":
        ranks = ", ".join(rank_label(entry[0]) for entry in body["cards"])
        return f"{who} opens the cards it still had face down: {ranks or 'none'}"
    return f"{who} writes {kind}"


