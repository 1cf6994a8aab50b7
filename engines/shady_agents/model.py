"""Shady Agents' public game as pure functions: turns, gifts, discards, interrogations (§2-§5).

Theory of operation
-------------------
``Game`` is the table as everyone sees it, kinds never included: the first player, who gave a
tool to whom and when (``PublicGift``, with the seq of its record), who discarded
(``PublicDiscard``), each interrogation (``Interrogation``: caller, card, the public snapshot, the
eligible answerers in answer order and their answers) and the deck of card ids left. Phases:

``first``    waiting for the beacon to pick the first player f (§2 step 5);
``round1``   the seat ``round_one_order[step]`` makes a Move or calls an Interrogation (§3);
``draw``     the caller's card is drawn with the beacon (§2 step 4);
``answers``  the eligible answerers answer in clockwise order from the caller (§5);
``round2``   the seat ``round_two_order[step]`` gives away every tool it holds (§4);
``end``      every seat has given or discarded both its tools.

Every function here takes a choice and returns a new ``Game`` or raises ``errors.Illegal``
(the kit names the record's seat and seq). Eligibility and the option sets read no kind, so the
public ``Snapshot`` (kinds ``None``) is enough to check that an answer may be given; whether it
was true is the final reveal's business: ``judge`` takes the opened kinds and the roles and
returns every ``Cheat`` (rules §7.4), each naming the record that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product

from spycraft.engines.errors import Illegal, Violation
from spycraft.engines.game import Cheat
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents.cards import Answer, Card, Snapshot
from spycraft.engines.shady_agents.components import (
    LAW_ABIDING,
    TOOL_NAMES,
    TOOLS,
    Discard,
    Gift,
    HiddenKind,
    Team,
    Tool,
    round_one_order,
    round_two_order,
)
from spycraft.engines.table import Unjudged

FIRST, ROUND1, DRAW, ANSWERS, ROUND2, END = "first", "round1", "draw", "answers", "round2", "end"


@dataclass(frozen=True)
class PublicGift:
    """A tool passed face down: everyone sees giver, receiver, round and record."""

    giver: int
    receiver: int
    round: int
    seq: int


@dataclass(frozen=True)
class PublicDiscard:
    seat: int
    seq: int


@dataclass(frozen=True)
class Interrogation:
    caller: int
    seq: int  # the record that called it
    card: str | None = None  # drawn by the beacon
    snapshot: Snapshot | None = None  # public (kinds None), right after the draw
    gifts_before: int = 0  # round-1 gifts in the snapshot (a prefix of Game.gifts)
    discards_before: int = 0  # discards in the snapshot (a prefix of Game.discards)
    answerers: tuple[int, ...] = ()  # eligible seats, in answer order
    answers: tuple[tuple[int, Answer, int], ...] = ()  # (seat, answer, seq)

    @property
    def drawn(self) -> Card:
        assert self.card is not None
        return cards.card(self.card)


@dataclass(frozen=True)
class Game:
    n: int
    leftover: Team | None = None  # the revealed leftover card (odd n), set once dealt
    first: int = -1
    phase: str = FIRST
    step: int = 0  # position in the current round's order
    gifts: tuple[PublicGift, ...] = ()
    discards: tuple[PublicDiscard, ...] = ()
    interrogations: tuple[Interrogation, ...] = ()
    remaining: tuple[str, ...] = cards.CARD_IDS

    def held(self, seat: int) -> int:
        """How many tools ``seat`` holds (public, §8)."""
        used = sum(1 for g in self.gifts if g.giver == seat)
        return 2 - used - sum(1 for d in self.discards if d.seat == seat)

    def turn_seat(self) -> int:
        """The seat whose round-1 or round-2 turn it is."""
        if self.phase == ROUND1:
            return round_one_order(self.n, self.first)[self.step]
        if self.phase == ROUND2:
            return round_two_order(self.n, self.first)[self.step]
        raise ValueError(f"no seat has a turn during {self.phase}")

    @property
    def asking(self) -> Interrogation | None:
        """The interrogation being drawn or answered."""
        return self.interrogations[-1] if self.phase in (DRAW, ANSWERS) else None

    def next_answerer(self) -> int:
        asking = self.asking
        assert asking is not None and self.phase == ANSWERS
        return asking.answerers[len(asking.answers)]

    def round_one_gifts(self) -> tuple[PublicGift, ...]:
        return tuple(g for g in self.gifts if g.round == 1)

    def public_snapshot(self, caller: int) -> Snapshot:
        return Snapshot(
            self.n,
            self.first,
            caller,
            tuple(Gift(g.giver, g.receiver, None) for g in self.round_one_gifts()),
            tuple(Discard(d.seat, None) for d in self.discards),
        )


def new_game(n: int, leftover: Team | None) -> Game:
    return Game(n, leftover)


def set_first(game: Game, first: int) -> Game:
    if game.phase != FIRST:
        raise Illegal("the first player is already chosen")
    return replace(game, first=first, phase=ROUND1, step=0)


def _next_turn(game: Game) -> Game:
    step = game.step + 1
    if game.phase == ROUND1 and step == game.n:
        return replace(game, phase=ROUND2, step=0)
    if game.phase == ROUND2 and step == game.n:
        return replace(game, phase=END, step=step)
    return replace(game, phase=game.phase, step=step)


def _own_turn(game: Game, seat: int, phase: str) -> None:
    if game.phase != phase or game.turn_seat() != seat:
        raise Illegal(f"it is not seat {seat}'s {'round-1' if phase == ROUND1 else 'round-2'} turn")


def move(game: Game, seat: int, receiver: int, seq: int) -> Game:
    """§3: a tool passed face down to another player."""
    _own_turn(game, seat, ROUND1)
    if receiver == seat:
        raise Illegal("nobody can give a tool to themselves")
    gift = PublicGift(seat, receiver, 1, seq)
    return _next_turn(replace(game, gifts=game.gifts + (gift,)))


def interrogate(game: Game, seat: int, discards: bool, seq: int) -> Game:
    """§3: the first player's interrogation is free; anyone else discards a tool first."""
    _own_turn(game, seat, ROUND1)
    if seat == game.first and discards:
        raise Illegal("the first player's interrogation is always free: it cannot discard")
    if seat != game.first and not discards:
        raise Illegal(f"seat {seat} must discard a tool to call an interrogation")
    extra = (PublicDiscard(seat, seq),) if discards else ()
    asking = Interrogation(seat, seq)
    return replace(
        game,
        phase=DRAW,
        discards=game.discards + extra,
        interrogations=game.interrogations + (asking,),
    )


def draw_card(game: Game, value: int) -> Game:
    """§5 steps 1-3: the card, the snapshot, and who must answer; nobody eligible ends the turn."""
    asking = game.asking
    if game.phase != DRAW or asking is None:
        raise ValueError("no card is to be drawn")
    drawn, remaining = cards.draw(game.remaining, value)
    snapshot = game.public_snapshot(asking.caller)
    asked = replace(
        asking,
        card=drawn.id,
        snapshot=snapshot,
        gifts_before=len(snapshot.gifts),
        discards_before=len(snapshot.discards),
        answerers=cards.eligible_answerers(drawn, snapshot),
    )
    game = replace(
        game, remaining=remaining, interrogations=game.interrogations[:-1] + (asked,)
    )
    if not asked.answerers:
        return _next_turn(replace(game, phase=ROUND1))
    return replace(game, phase=ANSWERS)


def answer(game: Game, seat: int, said: object, seq: int) -> Game:
    """§5 step 4: an eligible answerer's answer, which must be one of the card's options."""
    asking = game.asking
    if game.phase != ANSWERS or asking is None or game.next_answerer() != seat:
        raise Illegal(f"seat {seat} is not the one to answer now")
    assert asking.snapshot is not None
    spelled = cards.check_answer(asking.drawn, asking.snapshot, seat, said)
    asked = replace(asking, answers=asking.answers + ((seat, spelled, seq),))
    game = replace(game, interrogations=game.interrogations[:-1] + (asked,))
    if len(asked.answers) < len(asked.answerers):
        return game
    return _next_turn(replace(game, phase=ROUND1))


def give_all(game: Game, seat: int, receivers: tuple[int, ...], seq: int) -> Game:
    """§4: a round-2 turn gives every held tool, each to another player, two to two players."""
    _own_turn(game, seat, ROUND2)
    held = game.held(seat)
    if len(receivers) != held:
        raise Illegal(f"seat {seat} holds {held} tool{'s' * (held != 1)} and gives them all")
    if seat in receivers:
        raise Illegal("nobody can give a tool to themselves")
    if len(set(receivers)) != len(receivers):
        raise Illegal("the Bullet and the Medkit go to two different players")
    gifts = tuple(PublicGift(seat, r, 2, seq) for r in receivers)
    return _next_turn(replace(game, gifts=game.gifts + gifts))


def full_snapshot(
    game: Game, asking: Interrogation, gift_kinds: tuple[Tool | None, ...],
    discard_kinds: tuple[Tool | None, ...],
) -> Snapshot:
    """An interrogation's snapshot with the opened kinds (``None`` where still closed)."""
    assert asking.snapshot is not None
    round_one = [i for i, g in enumerate(game.gifts) if g.round == 1]
    gifts = tuple(
        Gift(g.giver, g.receiver, gift_kinds[i]) for g, i in zip(asking.snapshot.gifts, round_one)
    )
    discards = tuple(
        Discard(d.seat, discard_kinds[i]) for i, d in enumerate(asking.snapshot.discards)
    )
    return replace(asking.snapshot, gifts=gifts, discards=discards)


def judge(
    game: Game,
    gift_kinds: tuple[Tool | None, ...],
    discard_kinds: tuple[Tool | None, ...],
    roles: tuple[Team | None, ...],
) -> tuple[tuple[Cheat, ...], tuple[Unjudged, ...]]:
    """Rules §7.4 once kinds are open: each tool used once and only while held, every answer in
    T (Law-abiding) or outside it (Corrupt). ``None`` is a closed secret (a forfeiter's tools
    and, where the deck count leaves a choice, its role: ``engines.table``, "What a forfeiter
    owes"); nothing is judged against one, nor a closed tool's use (the seat's ``both`` proof
    already showed one Bullet and one Medkit when the second was given). An answer
    whose snapshot holds closed kinds is judged on every way they could be: a violation if it
    breaks its team's rule in all of them (the closed kinds cannot excuse it), fine if in none;
    otherwise, and whenever the answerer's role is closed, it is not judged. Returns the
    violations and what was not judged."""
    found: list[Cheat] = []
    unjudged: list[Unjudged] = []
    names = dict(TOOL_NAMES)
    for seat in range(game.n):
        uses = [(g.seq, gift_kinds[i], "gave") for i, g in enumerate(game.gifts) if g.giver == seat]
        uses += [
            (d.seq, discard_kinds[i], "discarded")
            for i, d in enumerate(game.discards)
            if d.seat == seat
        ]
        held = set(TOOLS)
        for seq, kind, verb in sorted(uses, key=lambda use: use[0]):
            if kind is None:  # closed with a forfeiter; `both` proved the count when it was made
                continue
            if kind not in held:
                what = f"seat {seat} {verb} a {names[kind]} it no longer held"
                found.append(Cheat(seat, seq, what))
            held.discard(kind)
    for asking in game.interrogations:
        if asking.snapshot is None:
            continue
        snapshot = full_snapshot(game, asking, gift_kinds, discard_kinds)
        for seat, said, seq in asking.answers:
            team = roles[seat]
            if team is None:
                unjudged.append(Unjudged(seat, seq, "answer", f"seat {seat}'s role"))
                continue
            verdict = _judge_answer(asking.drawn, snapshot, seat, team, said)
            if isinstance(verdict, Cheat):
                found.append(replace(verdict, seq=seq))
            elif verdict is not None:
                unjudged.append(Unjudged(seat, seq, "answer", verdict))
    return tuple(found), tuple(unjudged)


def _judge_answer(
    drawn: Card, snapshot: Snapshot, seat: int, team: Team, said: Answer
) -> Cheat | str | None:
    """One answer on a snapshot with closed kinds: its violation, None if it is fine, or what
    it needs (in words) when the closed kinds decide it."""
    try:
        cards.audit_answer(drawn, snapshot, seat, team, said)
        return None
    except Violation as exc:
        return Cheat(seat, 0, exc.what)
    except HiddenKind as exc:
        needs = str(exc)
    closed_gifts = [i for i, g in enumerate(snapshot.gifts) if g.kind is None]
    closed_discards = [i for i, d in enumerate(snapshot.discards) if d.kind is None]
    broken = 0
    ways = list(product(TOOLS, repeat=len(closed_gifts) + len(closed_discards)))
    for way in ways:
        gifts = list(snapshot.gifts)
        discards = list(snapshot.discards)
        for i, kind in zip(closed_gifts, way):
            gifts[i] = replace(gifts[i], kind=kind)
        for i, kind in zip(closed_discards, way[len(closed_gifts):]):
            discards[i] = replace(discards[i], kind=kind)
        complete = replace(snapshot, gifts=tuple(gifts), discards=tuple(discards))
        try:
            cards.audit_answer(drawn, complete, seat, team, said)
        except Violation:
            broken += 1
    if broken == len(ways):
        rule = "tell the truth" if team == LAW_ABIDING else "lie"
        return Cheat(
            seat, 0, f"seat {seat} answered {said!r} to {drawn.id} and had to {rule}: "
            "no kind of the tools that stayed closed makes that answer right"
        )
    return None if broken == 0 else needs
