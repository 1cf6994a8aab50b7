"""What one seat sees of Stratego: Spies & Lies, as data for bots and as text for people.

``SeatView`` is what a seat's agent gets with each decision: the public board and the seat's own
deployment and Sergeant token, nothing of the opponent's hidden cards. ``render`` draws the board
as text, public or for one seat (that seat's hidden ranks come from its own deployment, which
only the seat itself can pass in); ``narrate`` tells one record in one line for
``spycraft replay``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spycraft.engines.screens import forfeit_story
from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.model import INTEL, SIDES, Board, Card, rank_label


@dataclass(frozen=True)
class SeatView:
    board: Board
    seat: int
    deployment: tuple[int, ...] | None = None  # this seat's ranks under M1..M4, once chosen
    sergeant_token: bool | None = None  # this seat's Sergeant token, once chosen


def intel_text(card: int) -> str:
    """An Intel card as people read it: its name and the ranks it shows (the id is for records)."""
    intel = INTEL[card]
    return f"{intel.name} ({' '.join(map(str, sorted(intel.shows)))})"


def _track(da: int) -> str:
    spaces = []
    for position in range(-4, 5):
        if position == da:
            spaces.append("[DA]")
        elif abs(position) == model.ENEMY_WALL:
            spaces.append("[##]")
        else:
            spaces.append("[  ]")
    return "Red flag " + "".join(spaces) + " Blue flag"


def _card(card: Card, own: int | None) -> str:
    token = {None: "?", True: "●", False: "–"}[card.token]
    if card.rank is not None:
        what = f"{rank_label(card.rank)} {card.state}"
    elif own is not None:
        what = f"hidden ({rank_label(own)})"
    else:
        what = "hidden"
    extra = ""
    if card.deceived:
        extra += " DT"
    if card.guess is not None:
        extra += f" guessed {card.guess}"
    return f"[{token} {what}{extra}]"


def _flags(flags: model.Flags) -> str:
    names = [
        name
        for name, on in (
            ("Spy active", flags.spy),
            ("Scout active", flags.scout),
            ("Miner active", flags.miner),
            ("Bomb pending", flags.bomb),
            ("double damage", flags.double),
        )
        if on
    ]
    return ", ".join(names)


def render(state: Any, seat: int | None = None, own_deployment: Sequence[int] | None = None) -> str:
    """A text picture of the board; ``own_deployment`` shows ``seat``'s own hidden ranks.

    ``state`` is the table's game state, a bare ``Board``, or a ``SeatView`` (which carries the
    seat's own deployment)."""
    if isinstance(state, SeatView):
        if own_deployment is None and seat == state.seat:
            own_deployment = state.deployment
        state = state.board
    b: Board = getattr(state, "game", state)
    lines = [f"Stratego: Spies & Lies · day {b.day} of {model.LAST_DAY} · SP {SIDES[b.sp]}"]
    if b.phase == "mission":
        lines.append(
            f"step {b.step} of {model.STEPS}: {SIDES[model.guesser(b)]} guesses "
            f"{SIDES[model.defender(b)]}'s M{model.target_index(b) + 1} ({b.stage})"
        )
    else:
        lines.append(f"phase: {b.phase}")
    lines.append(f"{_track(b.da)}   DA {b.da:+d}")
    lines.append(f"Infiltration  Red {b.markers[0]}/10  Blue {b.markers[1]}/10")
    lines.append(f"Deception     Red {b.dt[0]}  Blue {b.dt[1]}  supply {b.supply}")
    exhausted = [", ".join(rank_label(r) for r in b.exhausted[s]) or "-" for s in (0, 1)]
    lines.append(f"Exhausted     Red {exhausted[0]}  Blue {exhausted[1]}")
    old = ", ".join(intel_text(c) for c in b.old_intel) or "-"
    lines.append(f"Old Intel     {old}")
    current = intel_text(b.current) if b.current is not None else "-"
    lines.append(f"Intel         {current}  (deck: {len(b.deck)} cards)")
    for side in (0, 1):
        mine = side == seat and own_deployment is not None
        cards = "  ".join(
            f"M{i + 1}{_card(c, own_deployment[i] if mine and own_deployment else None)}"
            for i, c in enumerate(b.cards[side])
        )
        flags = _flags(b.flags[side])
        you = " (you)" if side == seat else ""
        lines.append(
            f"{SIDES[side]}{you}: {cards or 'not deployed'}{'  · ' + flags if flags else ''}"
        )
    if b.captured_by is not None:
        lines.append(f"{SIDES[b.captured_by]} captured the enemy flag")
    if b.forfeits:
        lines.append("forfeit by " + ", ".join(SIDES[s] for s in b.forfeits))
    return "\n".join(lines)


def _changes(before: Board | None, after: Board) -> str:
    if before is None:
        return ""
    parts = []
    for s in (0, 1):
        if before.markers[s] != after.markers[s]:
            parts.append(f"{SIDES[s]} IP {before.markers[s]}->{after.markers[s]}")
    if before.da != after.da:
        parts.append(f"DA {before.da:+d}->{after.da:+d}")
    if after.captured_by is not None and before.captured_by is None:
        parts.append(f"{SIDES[after.captured_by]} captures the flag")
    return f" ({'; '.join(parts)})" if parts else ""


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


def _why(before: Board | None, after: Board, record: Any) -> list[str]:
    """Why the score moved, in the rulebook's words: a right guess, a soldier's ability, a
    Deception token that fooled the guesser, an infiltration (rules §6)."""
    if before is None:
        return []
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


def _because(before: Board | None, after: Board, record: Any) -> str:
    reasons = _why(before, after, record)
    return f": {'; '.join(reasons)}" if reasons else ""


def _last_revealed(board: Board, seat: int) -> int:
    return max(i for i, c in enumerate(board.cards[seat]) if c.rank is not None)


def reveal_text(after: Board, record: Any) -> str:
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


def choice_text(record: Any) -> str:
    """The choice of an activated Captain or Marshal."""
    who, body = SIDES[record.seat], record.body
    if record.kind == "captain":
        choice = "6 IP" if body["copy"] == 0 else f"copy {rank_label(body['copy'])}"
        return f"{who}'s Captain: {choice}"
    return f"{who}'s Marshal: {'take 5 IP from the enemy' if body['split'] else '10 IP'}"


def narrate(before: Any, record: Any, after: Any) -> str:
    """One line for one record; ``before`` may be None (the line then omits what changed)."""
    b: Board | None = getattr(before, "game", before)
    a: Board = getattr(after, "game", after)
    rec = getattr(record, "record", record)
    who = SIDES[rec.seat] if rec.seat in (0, 1) else f"seat {rec.seat}"
    body = rec.body
    kind = rec.kind
    if kind == "beacon":  # told once, by the draw the last value completes
        if a.phase in ("setup", "intel", "exhaustion"):
            return ""
        return _draw(a) + (_kept_back(b) if b is not None and a.day == b.day + 1 else "")
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
    if kind == "reveal":
        return f"{reveal_text(a, rec)}{_because(b, a, rec)}{_changes(b, a)}"
    if kind in ("captain", "marshal") and b is not None:
        return f"{'; '.join(_why(b, a, rec))}{_changes(b, a)}"
    if kind in ("captain", "marshal"):
        return choice_text(rec)
    if kind == "final":
        ranks = ", ".join(rank_label(entry[0]) for entry in body["cards"])
        return f"{who} opens the cards it still had face down: {ranks or 'none'}"
    if kind == "result":
        winner = body.get("winner")
        reason = str(body.get("reason") or "").replace("_", " ")
        return f"game over: {f'{winner} wins' if winner else 'no winner'} ({reason})"
    if kind in ("fraud", "abandon"):
        gone = [s for s in a.forfeits if b is None or s not in b.forfeits] or list(a.forfeits)
        return forfeit_story(kind, who, " and ".join(SIDES[s] for s in gone), len(gone) > 1)
    return f"{who} writes {kind}"


def hindsight(states: Sequence[Any], seat: int) -> list[SeatView]:
    """What ``seat`` saw at each state of a finished game: the board plus its own deployment.

    Every deployed card is face up by the end of its day (or opened by the final reveal), so the
    transcript alone tells which rank stood under each of the seat's Mission cards that day.
    """
    boards: list[Board] = [getattr(s, "game", s) for s in states]
    deployed: dict[int, tuple[int, ...]] = {}
    for board in boards:
        ranks = tuple(c.rank for c in board.cards[seat]) if board.cards[seat] else ()
        if len(ranks) == 4 and all(r is not None for r in ranks):
            deployed[board.day] = tuple(r for r in ranks if r is not None)
    return [
        SeatView(board, seat, deployed.get(board.day) if board.cards[seat] else None)
        for board in boards
    ]
