"""SpyNet's public game as a pure state machine over deck positions (rules/spynet.md §4-§9).

Theory of operation
-------------------
The 76 cards are the positions ``0 … 75`` of the shuffled mental-poker deck; nobody knows which
card a position holds until it is revealed. A ``Game`` is everything public: the deck's
positions (top first), the three piles, each hand's positions, the draft cards in passing, every
tableau with the faces of the agents played (``scoring.Board``), the face-down missions by
position, the discard pile, the per-turn counters and the point of the turn (``phase``).

Transitions are pure functions that check the rules they can check in public and raise
``Illegal`` otherwise. A step that needs a hidden card shown sets ``reveal`` (which positions,
to whom, and what follows); the game's rules (``rules``) run the deck operation and then call
``revealed`` with the faces of a public reveal. What ``revealed`` finds wrong in those faces (an
agent that is no agent, a funding card that is none) was the writer's lie, so the protocol
turns its ``Illegal`` into a violation of the record that asked for the reveal.

Phases: ``DRAFT`` (the drafter holding ``draft`` picks one), ``ACTION`` (recruit or deploy),
``RECRUIT`` (the pile ``looking`` is shown, take or return), ``DEPLOY`` (play an agent, a
mission, pass a card, end), ``EFFECT`` (the targeted special just played: use or decline),
``PAPER_TRAIL`` (S07: discard down to 6), ``END``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TypeVar

from spycraft.engines.agent import Choice
from spycraft.engines.errors import Illegal
from spycraft.engines.spynet import setup as SU
from spycraft.engines.spynet.cards import (
    BRANCHES,
    OPEN_SECRETS,
    PAPER_TRAIL,
    PAPER_TRAIL_HAND_LIMIT,
    Branch,
    Kind,
    card,
)
from spycraft.engines.spynet.deploy import (
    Counters,
    EffectUse,
    apply_effect,
    effect_uses,
    place_agent,
)
from spycraft.engines.spynet.scoring import Board, Tableau, may_play_mission, teammate

T = TypeVar("T")


def replace(obj: T, **changes: object) -> T:
    """``dataclasses.replace`` for this module's frozen dataclasses, without running
    ``__init__`` again: they have no ``__post_init__`` and no field computed from another, so
    the instance's dictionary with the changes is the same value, several times faster (the
    expert bot's searches make hundreds of thousands of moves)."""
    fields = obj.__dataclass_fields__  # type: ignore[attr-defined]
    if not changes.keys() <= fields.keys():
        unknown = sorted(changes.keys() - fields.keys())
        raise TypeError(f"{type(obj).__name__} has no field {unknown}")
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


DRAFT = "DRAFT"
ACTION = "ACTION"
RECRUIT = "RECRUIT"
DEPLOY = "DEPLOY"
EFFECT = "EFFECT"
PAPER = "PAPER_TRAIL"
END = "END"

# what follows a reveal
AFTER_DRAFT = "draft"
AFTER_LOOK = "look"
AFTER_DRAW = "draw"
AFTER_AGENT = "agent"
AFTER_EFFECT = "effect"
AFTER_MISSION = "mission"
AFTER_PASS = "pass"
AFTER_PAPER = "paper"


@dataclass(frozen=True)
class Need:
    """Positions to reveal to ``to`` (None: to everyone) before ``then`` goes on."""

    cards: tuple[int, ...]
    to: int | None
    then: str


@dataclass(frozen=True)
class Mission:
    """A mission in a tableau: its deck position, the seq of the record that played it, and its
    face once public (S03, or the final reveal)."""

    position: int
    seq: int
    face: str | None = None


@dataclass(frozen=True)
class Pending:
    """A deploy step waiting for its cards to be shown publicly."""

    card: int
    branch: Branch | None = None
    funding: tuple[int, ...] = ()
    use: EffectUse | None = None


def branch_of(text: object) -> Branch:
    if isinstance(text, str) and text in Branch.__members__:
        return Branch(text)
    raise Illegal(f"no branch {text!r}")


def _empty_board(n: int, situation: str | None) -> Board:
    return Board(tuple(Tableau() for _ in range(n)), situation)


@dataclass(frozen=True)
class Game:
    n: int
    situation: str | None = None
    first: int = 0
    phase: str = DRAFT
    current: int = 0  # the seat whose turn (or draft pick) it is
    deck: tuple[int, ...] = ()
    piles: tuple[tuple[int, ...], ...] = ((), (), ())
    hands: tuple[tuple[int, ...], ...] = ()
    draft: tuple[int, ...] = ()
    board: Board = field(default_factory=lambda: _empty_board(2, None))
    missions: tuple[tuple[tuple[Mission, ...], ...], ...] = ()  # seat -> branch -> pile
    discard: tuple[str, ...] = ()
    counters: Counters = field(default_factory=Counters)
    mission_branches: tuple[Branch, ...] = ()
    passed: bool = False
    special: str | None = None  # EFFECT: the targeted special just played
    looking: int | None = None  # RECRUIT: the pile shown now
    returned: tuple[int, ...] = ()
    emptied: bool = False  # the deck's last card left during this turn
    final_turns: tuple[int, ...] | None = None  # the final round's turns still to come
    reveal: Need | None = None
    pending: Pending | None = None
    drafted: tuple[tuple[int, int], ...] = ()  # (seat, position) kept in the draft

    @property
    def final(self) -> bool:
        return self.final_turns is not None

    def hand_of(self, seat: int) -> tuple[int, ...]:
        return self.hands[seat]

    def deck_count(self) -> int:
        return len(self.deck)


def new_game(n: int, first: int, situation: str | None) -> Game:
    """§4: the layout of the shuffled deck, then the draft from seat ``F−1``."""
    layout = SU.deal(tuple(range(SU.DECK_SIZE)), n)
    drafter = (first - 1) % n
    return Game(
        n=n,
        situation=situation,
        first=first,
        phase=DRAFT,
        current=drafter,
        deck=layout.deck,
        piles=layout.piles,
        hands=((),) * n,
        draft=layout.drafted,
        board=_empty_board(n, situation),
        missions=tuple(((),) * len(BRANCHES) for _ in range(n)),
        reveal=Need(layout.drafted, drafter, AFTER_DRAFT),
    )


def _with_hand(game: Game, seat: int, hand: tuple[int, ...]) -> Game:
    return replace(game, hands=game.hands[:seat] + (hand,) + game.hands[seat + 1 :])


def _expect(game: Game, seat: int, *phases: str) -> None:
    if game.reveal is not None:
        raise Illegal("cards are being revealed")
    if game.phase not in phases:
        raise Illegal(f"the game is at {game.phase}, not {' or '.join(phases)}")
    if seat != game.current:
        raise Illegal(f"it is seat {game.current}'s turn, not seat {seat}'s")


def _in_hand(game: Game, seat: int, position: int) -> None:
    if position not in game.hands[seat]:
        raise Illegal(f"position {position} is not a card in seat {seat}'s hand")


# --- the draft (§4.7) ------------------------------------------------------------------------


def draft_pick(game: Game, seat: int, position: int) -> Game:
    _expect(game, seat, DRAFT)
    if position not in game.draft:
        raise Illegal(f"position {position} is not one of the draft cards seat {seat} holds")
    game = _with_hand(game, seat, game.hands[seat] + (position,))
    rest = tuple(p for p in game.draft if p != position)
    receiver = (seat - 1) % game.n
    game = replace(game, drafted=game.drafted + ((seat, position),))
    if len(rest) == 1:  # the first player gets the last card, no choice
        game = _with_hand(game, receiver, game.hands[receiver] + rest)
        return replace(game, draft=(), current=receiver, reveal=Need(rest, receiver, AFTER_DRAFT))
    return replace(game, draft=rest, current=receiver, reveal=Need(rest, receiver, AFTER_DRAFT))


# --- the turn (§5) and recruit (§6) ----------------------------------------------------------


def choose_action(game: Game, seat: int, recruit: bool) -> Game:
    _expect(game, seat, ACTION)
    if not recruit:
        return _begin_deploy(game)
    if game.final:
        raise Illegal("no recruit in the final round")
    return _look_next(replace(game, phase=RECRUIT, returned=(), looking=None))


def _look_next(game: Game) -> Game:
    sizes = [len(p) for p in game.piles]
    k = SU.next_pile(sizes, game.returned)
    if k is None:
        return _finish_recruit(game, None)
    return replace(
        game, looking=k, reveal=Need(game.piles[k - 1], game.current, AFTER_LOOK)
    )


def pile_choice(game: Game, seat: int, take: bool) -> Game:
    _expect(game, seat, RECRUIT)
    assert game.looking is not None
    if take:
        return _finish_recruit(game, game.looking)
    return _look_next(replace(game, returned=game.returned + (game.looking,), looking=None))


def _finish_recruit(game: Game, taken: int | None) -> Game:
    seat = game.current
    done = SU.recruit(game.piles, game.deck, taken, game.situation)
    game = _with_hand(game, seat, game.hands[seat] + done.gained)
    game = replace(
        game,
        piles=done.piles,
        deck=done.deck,
        looking=None,
        returned=(),
        emptied=game.emptied or done.deck_emptied,
    )
    if taken is None:
        return replace(game, reveal=Need(done.gained, seat, AFTER_DRAW))
    return _end_turn(game)


# --- deploy (§7) and effects (§8) ------------------------------------------------------------


def _begin_deploy(game: Game) -> Game:
    return replace(
        game, phase=DEPLOY, counters=Counters(), mission_branches=(), passed=False, special=None
    )


def play_agent(
    game: Game, seat: int, position: int, branch: Branch, funding: Sequence[int]
) -> Game:
    """§7.1, the public half: the cards are in hand and a play is left; the faces follow."""
    _expect(game, seat, DEPLOY)
    cards = (position, *funding)
    if len(set(cards)) != len(cards):
        raise Illegal("an agent and its funding are distinct cards")
    for p in cards:
        _in_hand(game, seat, p)
    if funding and game.counters.full <= 0:
        raise Illegal("no agent play that may carry funding is left")
    if not funding and game.counters.full <= 0 and game.counters.bare <= 0:
        raise Illegal("no agent play is left")
    pending = Pending(position, branch, tuple(funding))
    return replace(game, pending=pending, reveal=Need(cards, None, AFTER_AGENT))


def play_effect(game: Game, seat: int, use: EffectUse | None, discard: int | None) -> Game:
    """§8: decline (``None``), or a use; a special discard is shown before the use applies."""
    _expect(game, seat, EFFECT)
    if use is None:
        return replace(game, phase=DEPLOY, special=None)
    assert game.special is not None
    effect = card(game.special).effect
    if discard is None or effect is None or not effect.special_discard:
        if discard is not None:
            raise Illegal(f"{game.special} has no special discard")
        return _apply_use(game, use, ())
    _in_hand(game, seat, discard)
    return replace(
        game, pending=Pending(discard, use=use), reveal=Need((discard,), None, AFTER_EFFECT)
    )


def _apply_use(game: Game, use: EffectUse, hand: tuple[str, ...]) -> Game:
    assert game.special is not None
    board, discarded = apply_effect(game.board, game.current, game.special, hand, use)
    return replace(
        game, board=board, discard=game.discard + discarded, phase=DEPLOY, special=None
    )


def play_mission(game: Game, seat: int, position: int, branch: Branch, seq: int) -> Game:
    """§7.2: the dominance test is public; the card stays face down (S03: shown at once)."""
    _expect(game, seat, DEPLOY)
    _in_hand(game, seat, position)
    if branch in game.mission_branches:
        raise Illegal(f"a mission was already played in {branch} this turn")
    if not may_play_mission(game.board, seat, branch):
        raise Illegal(f"seat {seat} may not play a mission in {branch}: it does not dominate it")
    i = BRANCHES.index(branch)
    piles = list(game.missions[seat])
    piles[i] = piles[i] + (Mission(position, seq),)
    missions = game.missions[:seat] + (tuple(piles),) + game.missions[seat + 1 :]
    game = _with_hand(game, seat, tuple(p for p in game.hands[seat] if p != position))
    game = replace(
        game, missions=missions, mission_branches=game.mission_branches + (branch,)
    )
    if game.situation == OPEN_SECRETS:
        return replace(
            game,
            pending=Pending(position, branch),
            reveal=Need((position,), None, AFTER_MISSION),
        )
    return game


def pass_card(game: Game, seat: int, position: int) -> Game:
    """§7.3: one card face down to the teammate (four seats only, once a turn)."""
    _expect(game, seat, DEPLOY)
    mate = teammate(seat, game.n)
    if mate is None:
        raise Illegal("passing a card exists only with four players")
    if game.passed:
        raise Illegal("a card was already passed this turn")
    _in_hand(game, seat, position)
    game = _with_hand(game, seat, tuple(p for p in game.hands[seat] if p != position))
    game = _with_hand(game, mate, game.hands[mate] + (position,))
    return replace(game, passed=True, reveal=Need((position,), mate, AFTER_PASS))


def deploy_options(game: Game, seat: int, hand: Sequence[tuple[int, str]]) -> tuple[Choice, ...]:
    """§13's deploy decisions for ``seat`` holding ``hand`` ((position, face) pairs), in the
    order a seat offers them: ``("play_agent", card, branch, funding)``, ``("play_mission",
    card, branch)``, ``("pass_card", card)`` and ``("end_deploy",)``."""
    counters = game.counters
    funding = sorted(p for p, f in hand if card(f).kind is Kind.FUNDING)
    options: list[Choice] = []
    for p, f in hand:
        printed = card(f)
        if not printed.is_agent:
            continue
        for branch in printed.branches:
            if counters.full > 0 or counters.bare > 0:
                options.append(("play_agent", p, branch, ()))
            if counters.full > 0:
                for size in range(1, len(funding) + 1):
                    options.extend(
                        ("play_agent", p, branch, fs) for fs in combinations(funding, size)
                    )
    playable: dict[Branch, bool] = {}  # a branch's test is the same for every mission
    for p, f in hand:
        printed = card(f)
        if printed.kind is not Kind.MISSION:
            continue
        for branch in printed.branches:
            if branch not in playable:
                playable[branch] = branch not in game.mission_branches and may_play_mission(
                    game.board, seat, branch)
            if playable[branch]:
                options.append(("play_mission", p, branch))
    if teammate(seat, game.n) is not None and not game.passed:
        options.extend(("pass_card", p) for p, _ in hand)
    options.append(("end_deploy",))
    return tuple(options)


def effect_options(
    game: Game, seat: int, hand: Sequence[tuple[int, str]]
) -> tuple[tuple[EffectUse, int | None] | None, ...]:
    """§13's ``effect`` decisions: ``None`` (decline), then each legal use with the position of
    its special discard (``None`` for an effect without one)."""
    assert game.special is not None
    position = {f: p for p, f in hand}
    uses = effect_uses(game.board, seat, game.special, [f for _, f in hand])
    return (None, *((u, None if u.discard is None else position[u.discard]) for u in uses))


def end_deploy(game: Game, seat: int) -> Game:
    _expect(game, seat, DEPLOY)
    return _end_turn(game)


def paper_trail(game: Game, seat: int, positions: Sequence[int]) -> Game:
    """S07: exactly the cards above six, shown and discarded."""
    _expect(game, seat, PAPER)
    excess = len(game.hands[seat]) - PAPER_TRAIL_HAND_LIMIT
    if len(positions) != excess or len(set(positions)) != excess:
        raise Illegal(f"seat {seat} discards exactly {excess} distinct cards")
    for p in positions:
        _in_hand(game, seat, p)
    return replace(game, reveal=Need(tuple(positions), None, AFTER_PAPER))


def _end_turn(game: Game) -> Game:
    seat = game.current
    if (
        game.situation == PAPER_TRAIL
        and game.phase != PAPER
        and len(game.hands[seat]) > PAPER_TRAIL_HAND_LIMIT
    ):
        return replace(game, phase=PAPER)
    final = game.final_turns
    if game.emptied and final is None:
        final = SU.final_round(seat, game.n)
    game = replace(game, emptied=False, special=None, pending=None)
    if final is not None:
        if not final:
            return replace(game, phase=END, final_turns=())
        return _begin_deploy(replace(game, current=final[0], final_turns=final[1:]))
    return replace(game, phase=ACTION, current=SU.next_seat(seat, game.n))


# --- after a reveal --------------------------------------------------------------------------


def revealed(game: Game, faces: Mapping[int, str]) -> Game:
    """The deck operation of ``game.reveal`` is done; ``faces`` holds a public reveal's faces.

    Raises ``Illegal`` when the faces show that the record which asked for the reveal lied.
    """
    need = game.reveal
    assert need is not None
    game = replace(game, reveal=None)
    seat = game.current
    if need.then == AFTER_DRAFT:
        if not game.draft:  # the first player got the last card: play begins
            return replace(game, phase=ACTION, current=game.first)
        return game
    if need.then in (AFTER_LOOK, AFTER_PASS):
        return game
    if need.then == AFTER_DRAW:
        return _end_turn(game)
    pending = game.pending
    game = replace(game, pending=None)
    if need.then == AFTER_PAPER:
        hand = tuple(p for p in game.hands[seat] if p not in need.cards)
        game = _with_hand(game, seat, hand)
        return _end_turn(replace(game, discard=game.discard + tuple(faces[p] for p in need.cards)))
    assert pending is not None
    if need.then == AFTER_AGENT:
        assert pending.branch is not None
        agent = faces[pending.card]
        funding = tuple(faces[p] for p in pending.funding)
        counters = game.counters.play(agent, funding)
        board = place_agent(game.board, seat, agent, pending.branch, funding)
        used = (pending.card, *pending.funding)
        game = _with_hand(game, seat, tuple(p for p in game.hands[seat] if p not in used))
        game = replace(game, board=board, counters=counters)
        effect = card(agent).effect
        if effect is not None and effect.targeted:
            return replace(game, phase=EFFECT, special=agent)
        return game
    if need.then == AFTER_EFFECT:
        assert pending.use is not None
        discarded = faces[pending.card]
        game = _with_hand(game, seat, tuple(p for p in game.hands[seat] if p != pending.card))
        return _apply_use(game, replace(pending.use, discard=discarded), (discarded,))
    # AFTER_MISSION (S03): the face up mission must belong to its branch
    assert pending.branch is not None
    face = faces[pending.card]
    if card(face).kind is not Kind.MISSION or not card(face).belongs_to(pending.branch):
        raise Illegal(f"{face} is not a mission of {pending.branch}")
    i = BRANCHES.index(pending.branch)
    piles = list(game.missions[seat])
    piles[i] = tuple(
        replace(m, face=face) if m.position == pending.card else m for m in piles[i]
    )
    return replace(
        game, missions=game.missions[:seat] + (tuple(piles),) + game.missions[seat + 1 :]
    )


def board_with_missions(game: Game, faces: Mapping[int, str]) -> Board:
    """The final board with every mission's face (§9.2), for scoring."""
    tableaux = tuple(
        replace(
            tableau,
            missions=tuple(
                tuple(faces[m.position] for m in pile) for pile in game.missions[seat]
            ),
        )
        for seat, tableau in enumerate(game.board.tableaux)
    )
    return replace(game.board, tableaux=tableaux)


def where(game: Game) -> dict[int, str]:
    """Where every position is (deck, pile k, hand s, draft, mission s, in play): for the
    conservation invariant; cards in play are counted by face elsewhere."""
    place: dict[int, str] = {}
    for p in game.deck:
        place[p] = "deck"
    for k, pile in enumerate(game.piles, 1):
        for p in pile:
            place[p] = f"pile {k}"
    for s, hand in enumerate(game.hands):
        for p in hand:
            place[p] = f"hand {s}"
    for p in game.draft:
        place.setdefault(p, "draft")
    for s, mission_piles in enumerate(game.missions):
        for mission_pile in mission_piles:
            for m in mission_pile:
                place[m.position] = f"mission {s}"
    return place
