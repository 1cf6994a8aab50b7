"""The Resistance with The Plot Thickens: the public game as a pure state machine.

Theory of operation
-------------------
This module is ``rules/resistance.md`` in code, in the rulebook's words. A ``Game`` is the public
state of section 4.1 plus the point of the flow (section 4.2) where the game now waits. Every
transition is a pure function ``Game -> Game`` that checks its input and raises ``IllegalMove``
(attributed to a seat and a seq by the game's rules, ``rules``) if the rules forbid it.

The game waits for one of three kinds of input, named by ``game.phase``:

* a **decision** of section 9 (``decision(game)`` lists who decides and every legal option in
  canonical order): the Strong Leader window, the plot deal, Overheard Conversation, Open Up,
  the proposal, Take Responsibility, No Confidence, In the Spotlight, Keeping a Close Eye;
* a **beacon value** (``FIRST_LEADER``, ``PLOT_DRAW``): ``set_first_leader`` and
  ``draw_plot_card`` take the uniform integer the beacon produced;
* the **outcome of a hidden step**, as plain values: ``cast_votes`` takes the votes of one vote
  step once they are opened, ``play_mission`` the spotlighted cards once they are shown,
  ``reveal_mission`` the counts (#Success, #Fail) of the other cards.

After every transition the state is *settled*: windows with no eligible seat are walked past,
Establish Confidence resolves by itself, rejections, scoring and the next round follow at once,
so ``phase`` always names something that needs input (or ``END``). Private looks are recorded
publicly as ``Look`` facts (who looked at whom); what the viewer saw is not part of this state:
the game's rules (``rules``) carry it to the viewer alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations, permutations

from spycraft.engines.agent import Choice
from spycraft.engines.errors import Illegal

# --- tables of section 1 -----------------------------------------------------------------------

PLAYER_COUNTS = (5, 6, 7, 8, 9, 10)
RESISTANCE_COUNT = {5: 3, 6: 4, 7: 4, 8: 5, 9: 6, 10: 6}
TEAM_SIZES = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}
PLOT_DRAWS = {5: 1, 6: 1, 7: 2, 8: 2, 9: 3, 10: 3}
MISSIONS = (1, 2, 3, 4, 5)
MAX_REJECTIONS = 5
WINS_NEEDED = 3

RESISTANCE = "resistance"
SPIES = "spies"


def spies(n: int) -> int:
    return n - RESISTANCE_COUNT[n]


def team_size(n: int, mission: int) -> int:
    return TEAM_SIZES[n][mission - 1]


def fails_needed(n: int, mission: int) -> int:
    """need(n, m): the two-fail rule belongs to mission number 4 with seven or more players."""
    return 2 if mission == 4 and n >= 7 else 1


def approvals_needed(n: int) -> int:
    return n // 2 + 1


def priority_order(leader: int, n: int) -> tuple[int, ...]:
    """[L, L+1, ..., L+n-1]: every ordering in the rules uses it."""
    return tuple((leader + i) % n for i in range(n))


def adjacent(seat: int, n: int) -> tuple[int, int]:
    return ((seat - 1) % n, (seat + 1) % n)


# --- plot cards (section 5.1) ------------------------------------------------------------------

STRONG_LEADER = "strong_leader"
NO_CONFIDENCE = "no_confidence"
OPINION_MAKER = "opinion_maker"
CLOSE_EYE = "close_eye"
SPOTLIGHT = "spotlight"
OVERHEARD = "overheard_conversation"
ESTABLISH_CONFIDENCE = "establish_confidence"
OPEN_UP = "open_up"
TAKE_RESPONSIBILITY = "take_responsibility"

IMMEDIATE, KEEP, PERMANENT = "immediate", "keep", "permanent"


@dataclass(frozen=True)
class PlotCard:
    id: str
    type: str
    category: str
    small_deck: bool  # part of the 7-card deck for 5-6 players


PLOT_CARDS = (
    PlotCard("P01", STRONG_LEADER, KEEP, True),
    PlotCard("P02", STRONG_LEADER, KEEP, False),
    PlotCard("P03", NO_CONFIDENCE, KEEP, True),
    PlotCard("P04", NO_CONFIDENCE, KEEP, False),
    PlotCard("P05", NO_CONFIDENCE, KEEP, False),
    PlotCard("P06", OPINION_MAKER, PERMANENT, True),
    PlotCard("P07", OPINION_MAKER, PERMANENT, False),
    PlotCard("P08", CLOSE_EYE, KEEP, True),
    PlotCard("P09", CLOSE_EYE, KEEP, False),
    PlotCard("P10", SPOTLIGHT, KEEP, True),
    PlotCard("P11", OVERHEARD, IMMEDIATE, True),
    PlotCard("P12", OVERHEARD, IMMEDIATE, False),
    PlotCard("P13", ESTABLISH_CONFIDENCE, IMMEDIATE, True),
    PlotCard("P14", OPEN_UP, IMMEDIATE, False),
    PlotCard("P15", TAKE_RESPONSIBILITY, KEEP, False),
)
CARDS = {card.id: card for card in PLOT_CARDS}

TITLES = {
    STRONG_LEADER: "Strong Leader",
    NO_CONFIDENCE: "No Confidence",
    OPINION_MAKER: "Opinion Maker",
    CLOSE_EYE: "Keeping a Close Eye on You",
    SPOTLIGHT: "In the Spotlight",
    OVERHEARD: "Overheard Conversation",
    ESTABLISH_CONFIDENCE: "Establish Confidence",
    OPEN_UP: "Open Up",
    TAKE_RESPONSIBILITY: "Take Responsibility",
}


def plot_deck(n: int) -> tuple[str, ...]:
    return tuple(c.id for c in PLOT_CARDS if n >= 7 or c.small_deck)


def card_type(card_id: str) -> str:
    return CARDS[card_id].type


# --- phases ------------------------------------------------------------------------------------

FIRST_LEADER = "FIRST_LEADER"  # beacon: uniform(n)
WINDOW_STRONG_LEADER = "STRONG_LEADER"
PLOT_DRAW = "PLOT_DRAW"  # beacon: uniform(len(deck)) per card
PLOT_DEAL = "PLOT_DEAL"
PLOT_RESOLVE = "PLOT_RESOLVE"
PROPOSE = "PROPOSE"
WINDOW_TAKE_RESPONSIBILITY = "TAKE_RESPONSIBILITY"
VOTE = "VOTE"  # hidden: the opened votes of one step
WINDOW_NO_CONFIDENCE = "NO_CONFIDENCE"
WINDOW_SPOTLIGHT = "SPOTLIGHT"
MISSION_PLAY = "MISSION_PLAY"  # hidden: the spotlighted cards, once all have played
WINDOW_CLOSE_EYE = "CLOSE_EYE"
MISSION_REVEAL = "MISSION_REVEAL"  # hidden: counts of the other cards
END = "END"

WINDOW_CARD = {
    WINDOW_STRONG_LEADER: STRONG_LEADER,
    WINDOW_TAKE_RESPONSIBILITY: TAKE_RESPONSIBILITY,
    WINDOW_NO_CONFIDENCE: NO_CONFIDENCE,
    WINDOW_SPOTLIGHT: SPOTLIGHT,
    WINDOW_CLOSE_EYE: CLOSE_EYE,
}
CLOSES_ON_FIRST_PLAY = {WINDOW_STRONG_LEADER, WINDOW_NO_CONFIDENCE}

# section 9: the decision each phase asks for
DECISION_OF_PHASE = {
    WINDOW_STRONG_LEADER: "strong_leader",
    PLOT_DEAL: "plot_deal",
    PROPOSE: "propose",
    WINDOW_TAKE_RESPONSIBILITY: "take_responsibility",
    VOTE: "vote",
    WINDOW_NO_CONFIDENCE: "no_confidence",
    WINDOW_SPOTLIGHT: "spotlight",
    MISSION_PLAY: "mission_card",
    WINDOW_CLOSE_EYE: "close_eye",
}

SUCCESS, FAIL = "success", "fail"
PASS = None  # the "pass" option of every window


IllegalMove = Illegal  # a move the rules forbid; the kit names the seat and the record


# --- state -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proposal:
    mission: int
    team: tuple[int, ...]  # sorted seats


@dataclass(frozen=True)
class MissionResult:
    mission: int
    round: int
    leader: int
    team: tuple[int, ...]
    successes: int
    fails: int
    failed: bool
    spotlight: tuple[tuple[int, str], ...] = ()  # (seat, card) shown face up


@dataclass(frozen=True)
class VoteRecord:
    round: int
    leader: int
    proposal: Proposal
    votes: tuple[bool, ...]  # approve per seat
    approved: bool
    no_confidence: int | None = None  # the seat that played No Confidence on it


@dataclass(frozen=True)
class Look:
    """A private look, public as a fact: ``viewer`` saw ``subject``'s role or mission card."""

    viewer: int
    subject: int
    card: str  # the plot card that caused it
    what: str  # "role" or "mission_card"
    round: int


@dataclass(frozen=True)
class Window:
    phase: str
    order: tuple[int, ...]
    position: int  # index in ``order`` of the seat whose turn it is


@dataclass(frozen=True)
class Ending:
    winner: str
    reason: str


@dataclass(frozen=True)
class Game:
    n: int
    plot: bool
    targeting: bool
    blind_spies: bool
    phase: str = FIRST_LEADER
    leader: int = 0  # meaningless until FIRST_LEADER is done
    round: int = 1
    vote_track: int = 0
    results: tuple[MissionResult | None, ...] = (None,) * 5
    drawn: bool = False
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    to_draw: int = 0  # PLOT_DRAW: cards still to draw
    drawn_cards: tuple[str, ...] = ()  # drawn, waiting for the deal (in draw order)
    to_resolve: tuple[tuple[str, int], ...] = ()  # immediate (card, recipient), in resolve order
    proposal: Proposal | None = None
    window: Window | None = None
    voters: tuple[int, ...] = ()  # VOTE: the seats of this step, in commit order
    opinion_step: bool = False  # VOTE: this is step 1 (Opinion Makers)
    votes: tuple[bool | None, ...] = ()  # this proposal's opened votes
    spotlighted: tuple[int, ...] = ()
    spotlight_cards: tuple[tuple[int, str], ...] = ()
    examined: tuple[tuple[int, int], ...] = ()  # (examiner, member) of this mission
    looks: tuple[Look, ...] = ()
    vote_log: tuple[VoteRecord, ...] = ()
    ending: Ending | None = None
    plays: tuple[tuple[int, str, Choice], ...] = field(default=())  # (seat, card id, target) log

    @property
    def successes(self) -> int:
        return sum(1 for r in self.results if r is not None and not r.failed)

    @property
    def failures(self) -> int:
        return sum(1 for r in self.results if r is not None and r.failed)

    @property
    def team(self) -> tuple[int, ...]:
        return self.proposal.team if self.proposal is not None else ()

    def holds(self, seat: int, kind: str) -> tuple[str, ...]:
        """The cards of one type in a seat's hand, lowest id first."""
        return tuple(c for c in self.hands[seat] if card_type(c) == kind)

    def opinion_makers(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.n) if self.holds(s, OPINION_MAKER))

    def available_missions(self) -> tuple[int, ...]:
        if not self.targeting:
            return (self.round,)
        return tuple(
            m for m in MISSIONS if self.results[m - 1] is None and (m != 5 or self.successes >= 2)
        )

    def mission_players(self) -> tuple[int, ...]:
        """The team in priority order from L: the order mission cards are committed in."""
        return tuple(s for s in priority_order(self.leader, self.n) if s in self.team)

    def window_seat(self) -> int:
        assert self.window is not None
        return self.window.order[self.window.position]


def new_game(
    n: int, plot: bool = False, targeting: bool = False, blind_spies: bool = False
) -> Game:
    if n not in PLAYER_COUNTS:
        raise ValueError(f"The Resistance is played by 5 to 10 players, not {n}")
    return Game(
        n=n,
        plot=plot,
        targeting=targeting,
        blind_spies=blind_spies,
        deck=plot_deck(n) if plot else (),
        hands=((),) * n,
    )


# --- what the game waits for -------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionPoint:
    """A section 9 decision: ``kind``, the seats deciding (several only for vote and
    mission_card), and the legal options in canonical order (``None`` is "pass")."""

    kind: str
    seats: tuple[int, ...]
    options: tuple[Choice, ...]


def decision(game: Game) -> DecisionPoint | None:
    """The decision the game waits for, or None when it waits for a beacon value or the end."""
    phase = game.phase
    if game.window is not None:
        seat = game.window_seat()
        return DecisionPoint(DECISION_OF_PHASE[phase], (seat,), window_options(game, seat))
    if phase == PLOT_DEAL:
        others = tuple(s for s in range(game.n) if s != game.leader)
        maps = tuple(
            tuple(zip(game.drawn_cards, seats))
            for seats in permutations(others, len(game.drawn_cards))
        )
        return DecisionPoint("plot_deal", (game.leader,), maps)
    if phase == PLOT_RESOLVE:
        card, seat = game.to_resolve[0]
        if card_type(card) == OVERHEARD:
            return DecisionPoint("overheard_target", (seat,), adjacent(seat, game.n))
        return DecisionPoint(
            "open_up_viewer", (seat,), tuple(s for s in range(game.n) if s != seat)
        )
    if phase == PROPOSE:
        options = tuple(
            Proposal(m, team)
            for m in game.available_missions()
            for team in combinations(range(game.n), team_size(game.n, m))
        )
        return DecisionPoint("propose", (game.leader,), options)
    if phase == VOTE:
        return DecisionPoint("vote", game.voters, (True, False))
    if phase == MISSION_PLAY:
        return DecisionPoint("mission_card", game.mission_players(), (SUCCESS, FAIL))
    return None


def mission_card_options(is_spy: bool) -> tuple[str, ...]:
    return (SUCCESS, FAIL) if is_spy else (SUCCESS,)


def window_options(game: Game, seat: int) -> tuple[Choice, ...]:
    """Every legal answer of ``seat`` in the open window, "pass" (None) first."""
    assert game.window is not None
    phase = game.window.phase
    if not game.holds(seat, WINDOW_CARD[phase]):
        return ()
    plays: tuple[Choice, ...]
    if phase in (WINDOW_STRONG_LEADER, WINDOW_NO_CONFIDENCE):
        plays = (True,) if phase != WINDOW_STRONG_LEADER or seat != game.leader else ()
    elif phase == WINDOW_TAKE_RESPONSIBILITY:
        plays = tuple((s, c) for s in range(game.n) if s != seat for c in game.hands[s])
    elif phase == WINDOW_SPOTLIGHT:
        plays = tuple(s for s in game.mission_players() if s not in game.spotlighted)
    else:
        taken = {m for _, m in game.examined}
        plays = tuple(
            s
            for s in game.mission_players()
            if s != seat and s not in game.spotlighted and s not in taken
        )
    return (PASS,) + plays if plays else ()


# --- transitions -------------------------------------------------------------------------------


def set_first_leader(game: Game, value: int) -> Game:
    """Setup step 4: L = uniform(n), the game's first beacon draw."""
    _expect(game, FIRST_LEADER)
    if not 0 <= value < game.n:
        raise IllegalMove(f"the first Leader must be a seat, not {value}")
    return _begin_round(replace(game, leader=value))


def draw_plot_card(game: Game, value: int) -> Game:
    """PLOT_DRAW: take D[value] from the remaining deck D sorted by id (value = uniform(len D))."""
    _expect(game, PLOT_DRAW)
    deck = tuple(sorted(game.deck))
    if not 0 <= value < len(deck):
        raise IllegalMove(f"plot draw {value} outside a deck of {len(deck)}")
    card = deck[value]
    game = replace(
        game,
        deck=deck[:value] + deck[value + 1 :],
        drawn_cards=game.drawn_cards + (card,),
        to_draw=game.to_draw - 1,
    )
    if game.to_draw == 0:
        game = replace(game, phase=PLOT_DEAL)
    return game


def deal_plot(game: Game, seat: int, deal: Mapping[str, int]) -> Game:
    """PLOT_DEAL: the Leader gives each drawn card to a different seat, never himself."""
    _expect(game, PLOT_DEAL)
    _is_deciding(game, seat)
    if set(deal) != set(game.drawn_cards):
        raise IllegalMove("the deal must give away exactly the drawn cards")
    recipients = list(deal.values())
    if len(set(recipients)) != len(recipients):
        raise IllegalMove("each drawn card goes to a different seat")
    for recipient in recipients:
        if not isinstance(recipient, int) or not 0 <= recipient < game.n:
            raise IllegalMove(f"no seat {recipient!r}")
        if recipient == game.leader:
            raise IllegalMove("the Leader never deals a plot card to himself")
    hands = list(game.hands)
    immediate: list[tuple[str, int]] = []
    for card in game.drawn_cards:
        if CARDS[card].category == IMMEDIATE:
            immediate.append((card, deal[card]))
        else:
            hands[deal[card]] = tuple(sorted(hands[deal[card]] + (card,)))
    order = priority_order(game.leader, game.n)
    immediate.sort(key=lambda item: order.index(item[1]))
    game = replace(
        game,
        hands=tuple(hands),
        drawn_cards=(),
        to_resolve=tuple(immediate),
        plays=game.plays + tuple((deal[c], c, "dealt") for c in game.drawn_cards),
        phase=PLOT_RESOLVE,
    )
    return _resolve_plot(game)


def resolve_overheard(game: Game, seat: int, target: int) -> Game:
    """Overheard Conversation: the recipient looks at the role of a neighbour."""
    return _resolve_choice(game, seat, OVERHEARD, target, viewer=seat, subject=target)


def resolve_open_up(game: Game, seat: int, viewer: int) -> Game:
    """Open Up: the recipient shows his role to a seat of his choice."""
    return _resolve_choice(game, seat, OPEN_UP, viewer, viewer=viewer, subject=seat)


def propose(game: Game, seat: int, proposal: Proposal) -> Game:
    _expect(game, PROPOSE)
    _is_deciding(game, seat)
    if proposal.mission not in game.available_missions():
        raise IllegalMove(f"mission {proposal.mission} is not available")
    team = proposal.team
    size = team_size(game.n, proposal.mission)
    if len(team) != size or len(set(team)) != size or tuple(sorted(team)) != team:
        raise IllegalMove(f"mission {proposal.mission} needs a team of {size} distinct seats")
    if any(not 0 <= s < game.n for s in team):
        raise IllegalMove("a team member is not a seat")
    game = replace(game, proposal=proposal, votes=(None,) * game.n, phase=PROPOSE)
    if game.plot:
        return _open_window(game, WINDOW_TAKE_RESPONSIBILITY, priority_order(game.leader, game.n))
    return _begin_vote(game)


def play_window(game: Game, seat: int, choice: Choice) -> Game:
    """One turn in the open window: ``None`` passes, anything else plays one card."""
    window = game.window
    if window is None:
        raise IllegalMove("no plot card window is open")
    _is_deciding(game, seat)
    options = window_options(game, seat)
    if choice not in options:
        raise IllegalMove(f"{choice!r} is not a legal answer in the {window.phase} window")
    if choice is PASS:
        return _next_turn(game)
    kind = WINDOW_CARD[window.phase]
    card = game.holds(seat, kind)[0]  # the copy with the lowest id is the one discarded
    game = _discard_from(game, seat, card)
    game = replace(game, plays=game.plays + ((seat, card, choice),))
    if window.phase == WINDOW_STRONG_LEADER:
        return _after_strong_leader(replace(game, leader=seat, window=None))
    if window.phase == WINDOW_NO_CONFIDENCE:
        last = game.vote_log[-1]
        log = game.vote_log[:-1] + (replace(last, no_confidence=seat),)
        return _reject(replace(game, window=None, vote_log=log))
    if window.phase == WINDOW_TAKE_RESPONSIBILITY:
        victim, taken = choice
        hands = list(game.hands)
        hands[victim] = tuple(c for c in hands[victim] if c != taken)
        hands[seat] = tuple(sorted(hands[seat] + (taken,)))
        game = replace(game, hands=tuple(hands))
    elif window.phase == WINDOW_SPOTLIGHT:
        game = replace(game, spotlighted=game.spotlighted + (choice,))
    else:
        game = replace(
            game,
            examined=game.examined + ((seat, choice),),
            looks=game.looks + (Look(seat, choice, card, "mission_card", game.round),),
        )
    return _next_turn(game)


def cast_votes(game: Game, votes: Mapping[int, bool]) -> Game:
    """The opened votes of one vote step (Opinion Makers, or everyone else)."""
    _expect(game, VOTE)
    if set(votes) != set(game.voters):
        raise IllegalMove("every seat of this vote step votes, and nobody else")
    if any(not isinstance(v, bool) for v in votes.values()):
        raise IllegalMove("a vote is approve or reject")
    cast = tuple(votes.get(s, game.votes[s]) for s in range(game.n))
    game = replace(game, votes=cast)
    if game.opinion_step:
        rest = tuple(s for s in priority_order(game.leader, game.n) if s not in game.voters)
        return replace(game, voters=rest, opinion_step=False)
    final = tuple(bool(v) for v in cast)
    approved = sum(final) >= approvals_needed(game.n)
    assert game.proposal is not None
    record = VoteRecord(game.round, game.leader, game.proposal, final, approved)
    game = replace(game, vote_log=game.vote_log + (record,), voters=())
    if not approved:
        return _reject(game)
    if game.plot:
        return _open_window(game, WINDOW_NO_CONFIDENCE, priority_order(game.leader, game.n))
    return _begin_mission(game)


def play_mission(game: Game, spotlight_cards: Mapping[int, str]) -> Game:
    """Every member has played; the spotlighted cards are shown face up (SPOTLIGHT_REVEAL)."""
    _expect(game, MISSION_PLAY)
    if set(spotlight_cards) != set(game.spotlighted):
        raise IllegalMove("exactly the spotlighted cards are shown")
    if any(c not in (SUCCESS, FAIL) for c in spotlight_cards.values()):
        raise IllegalMove("a mission card is Success or Fail")
    shown = tuple((s, spotlight_cards[s]) for s in game.spotlighted)
    game = replace(game, spotlight_cards=shown)
    if game.plot:
        return _open_window(game, WINDOW_CLOSE_EYE, priority_order(game.leader, game.n))
    return replace(game, phase=MISSION_REVEAL)


def reveal_mission(game: Game, successes: int, fails: int) -> Game:
    """MISSION_REVEAL: the counts of the cards not spotlighted; then SCORE."""
    _expect(game, MISSION_REVEAL)
    hidden = len(game.team) - len(game.spotlighted)
    if successes < 0 or fails < 0 or successes + fails != hidden:
        raise IllegalMove(f"the mission reveal shows {hidden} cards")
    assert game.proposal is not None
    shown_fails = sum(1 for _, c in game.spotlight_cards if c == FAIL)
    total_fails = fails + shown_fails
    total_successes = len(game.team) - total_fails
    mission = game.proposal.mission
    result = MissionResult(
        mission=mission,
        round=game.round,
        leader=game.leader,
        team=game.team,
        successes=total_successes,
        fails=total_fails,
        failed=total_fails >= fails_needed(game.n, mission),
        spotlight=game.spotlight_cards,
    )
    results = list(game.results)
    results[mission - 1] = result
    game = replace(game, results=tuple(results))
    if game.successes == WINS_NEEDED:
        return _end(game, RESISTANCE, "three_successes")
    if game.failures == WINS_NEEDED:
        return _end(game, SPIES, "three_failures")
    return _begin_round(replace(game, round=game.round + 1, leader=(game.leader + 1) % game.n))


# --- the flow between inputs (section 4.2) ----------------------------------------------------


def _begin_round(game: Game) -> Game:
    game = replace(
        game,
        vote_track=0,
        drawn=False,
        proposal=None,
        spotlighted=(),
        spotlight_cards=(),
        examined=(),
    )
    return _begin_proposal(game)


def _begin_proposal(game: Game) -> Game:
    game = replace(game, proposal=None, votes=())
    if game.plot:
        order = priority_order(game.leader, game.n)[1:]
        return _open_window(game, WINDOW_STRONG_LEADER, order)
    return replace(game, phase=PROPOSE)


def _after_strong_leader(game: Game) -> Game:
    if game.plot and not game.drawn:
        count = min(PLOT_DRAWS[game.n], len(game.deck))
        if count == 0:
            return replace(game, drawn=True, phase=PROPOSE)
        return replace(game, phase=PLOT_DRAW, to_draw=count)
    return replace(game, phase=PROPOSE)


def _resolve_plot(game: Game) -> Game:
    """Resolve immediate cards in order; Establish Confidence needs no decision."""
    while game.to_resolve:
        card, seat = game.to_resolve[0]
        if card_type(card) != ESTABLISH_CONFIDENCE:
            return replace(game, phase=PLOT_RESOLVE)
        look = Look(seat, game.leader, card, "role", game.round)
        game = replace(
            game,
            to_resolve=game.to_resolve[1:],
            discard=tuple(sorted(game.discard + (card,))),
            looks=game.looks + (look,),
        )
    return replace(game, drawn=True, phase=PROPOSE)


def _resolve_choice(
    game: Game, seat: int, kind: str, choice: int, *, viewer: int, subject: int
) -> Game:
    _expect(game, PLOT_RESOLVE)
    point = decision(game)
    assert point is not None
    card, recipient = game.to_resolve[0]
    if card_type(card) != kind:
        raise IllegalMove(f"the card to resolve is {TITLES[card_type(card)]}")
    if seat != recipient:
        raise IllegalMove(f"seat {recipient} resolves {card}")
    if choice not in point.options:
        raise IllegalMove(f"{choice!r} is not a legal choice for {TITLES[kind]}")
    game = replace(
        game,
        to_resolve=game.to_resolve[1:],
        discard=tuple(sorted(game.discard + (card,))),
        looks=game.looks + (Look(viewer, subject, card, "role", game.round),),
        plays=game.plays + ((seat, card, choice),),
    )
    return _resolve_plot(game)


def _begin_vote(game: Game) -> Game:
    order = priority_order(game.leader, game.n)
    makers = set(game.opinion_makers())
    if makers:
        first = tuple(s for s in order if s in makers)
        return replace(game, window=None, phase=VOTE, voters=first, opinion_step=True)
    return replace(game, window=None, phase=VOTE, voters=order, opinion_step=False)


def _reject(game: Game) -> Game:
    game = replace(game, vote_track=game.vote_track + 1)
    if game.vote_track >= MAX_REJECTIONS:
        return _end(game, SPIES, "five_rejections")
    return _begin_proposal(replace(game, leader=(game.leader + 1) % game.n))


def _begin_mission(game: Game) -> Game:
    game = replace(game, window=None, spotlighted=(), spotlight_cards=(), examined=())
    if game.plot:
        return _open_window(game, WINDOW_SPOTLIGHT, priority_order(game.leader, game.n))
    return replace(game, phase=MISSION_PLAY)


def _end(game: Game, winner: str, reason: str) -> Game:
    return replace(game, window=None, phase=END, ending=Ending(winner, reason))


def _open_window(game: Game, phase: str, order: tuple[int, ...]) -> Game:
    return _settle_window(replace(game, phase=phase, window=Window(phase, order, 0)))


def _next_turn(game: Game) -> Game:
    window = game.window
    assert window is not None
    return _settle_window(replace(game, window=replace(window, position=window.position + 1)))


def _settle_window(game: Game) -> Game:
    """Walk past seats with nothing to play; close the window after the last seat."""
    window = game.window
    assert window is not None
    position = window.position
    while position < len(window.order) and not window_options(
        replace(game, window=replace(window, position=position)), window.order[position]
    ):
        position += 1
    if position < len(window.order):
        return replace(game, window=replace(window, position=position))
    game = replace(game, window=None)
    if window.phase == WINDOW_STRONG_LEADER:
        return _after_strong_leader(game)
    if window.phase == WINDOW_TAKE_RESPONSIBILITY:
        return _begin_vote(game)
    if window.phase == WINDOW_NO_CONFIDENCE:
        return _begin_mission(game)
    if window.phase == WINDOW_SPOTLIGHT:
        return replace(game, phase=MISSION_PLAY)
    return replace(game, phase=MISSION_REVEAL)


def _discard_from(game: Game, seat: int, card: str) -> Game:
    hands = list(game.hands)
    hands[seat] = tuple(c for c in hands[seat] if c != card)
    return replace(game, hands=tuple(hands), discard=tuple(sorted(game.discard + (card,))))


def _expect(game: Game, phase: str) -> None:
    if game.phase != phase:
        raise IllegalMove(f"the game is at {game.phase}, not {phase}")


def _is_deciding(game: Game, seat: int) -> None:
    point = decision(game)
    if point is None or seat not in point.seats:
        raise IllegalMove(f"seat {seat} has no decision to make at {game.phase}")
