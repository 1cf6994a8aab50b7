"""Property tests: whole random games of SpyNet on the pure model, 2, 3 and 4 players.

Each example shuffles the 76 cards, picks the first player and a situation (none, or one of the
eight) and plays one whole legal game through ``model`` (the functions the protocol applies),
with a uniformly random legal choice at every decision (``model.deploy_options`` and
``model.effect_options`` are the seat's own lists) and no cryptography: a reveal is answered
with the true faces. After every step it checks, from the rule text rather than the engine's
helpers:

* every card is in exactly one place (deck, a pile, a hand, the draft, a mission pile, a stack,
  attached to an agent, the discard pile), and the 76 cards are all there;
* the deck count: ``73 − n`` after the draft, and each recruit takes what §6 says (the taken
  pile's refills, or the draw and every refill), refills in pile order, a returned pile keeps
  its order;
* dominance is §3's definition (power above every opponent's, partners never against each
  other), at most one team dominates a branch, and a mission is accepted exactly where §7.2
  allows it (any other branch is refused);
* nobody but the seat whose turn it is (or its teammate, for a pass) is shown a hidden card, a
  seat knows every card of its hand, a face-down mission is shown to nobody;
* the end trigger: no turn starts with an empty deck; once the deck's last card leaves during
  seat ``e``'s turn, ``e`` finishes it, seats ``e+1 … e+n`` take one Deploy each, and the game
  ends; every game ends and scores (§9);
* determinism: the same deck and choices give the same game.

The signed engine path is covered by a few whole signed games in ``test_spynet_game``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.engines.errors import Illegal
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.cards import (
    BRANCHES,
    COLD_STANDOFF,
    DECK,
    HIRING_SPREE,
    OPEN_SECRETS,
    PAPER_TRAIL,
    PAPER_TRAIL_HAND_LIMIT,
    SITUATIONS,
    Branch,
    Kind,
    card,
)
from spycraft.engines.spynet.scoring import dominates, misplaced_missions, power, score

GAMES = 200  # per run: 2, 3 and 4 players, every situation and none
EVERY_CARD = sorted(DECK)
TEAMS = {2: ((0,), (1,)), 3: ((0,), (1,), (2,)), 4: ((0, 2), (1, 3))}  # §1, written out


def team(seat: int, n: int) -> tuple[int, ...]:
    return next(t for t in TEAMS[n] if seat in t)


@dataclass
class Play:
    """One game on the model: the faces of the deck positions and what the driver saw."""

    n: int
    faces: tuple[str, ...]  # the face of each deck position (the shuffle)
    game: M.Game
    rng: random.Random
    shown: list[set[int]]  # per seat, the positions privately shown to it
    public: set[int] = field(default_factory=set)
    choices: list[Any] = field(default_factory=list)
    turns: list[tuple[int, str, int]] = field(default_factory=list)  # (seat, first phase, deck)
    emptied_by: int | None = None
    recruit: tuple[M.Game, int | None] | None = None  # the game before the recruit ended
    steps: int = 0
    check: bool = True
    _board: Any = None
    _powers: list[list[int]] = field(default_factory=list)

    def powers(self) -> list[list[int]]:
        """``pw(s, b)`` of the current board, per seat and branch (kept until the board moves)."""
        if self._board is not self.game.board:
            board = self.game.board
            self._board = board
            self._powers = [[power(board, s, b) for b in BRANCHES] for s in range(self.n)]
        return self._powers

    def knows(self, seat: int, position: int) -> bool:
        return position in self.shown[seat] or position in self.public

    def hand(self, seat: int) -> list[tuple[int, str]]:
        return [(p, self.faces[p]) for p in self.game.hands[seat]]

    def choose(self, options: Any) -> Any:
        options = tuple(options)
        assert options, "a decision without a legal option"
        chosen = options[self.rng.randrange(len(options))]
        self.choices.append(chosen)
        return chosen


# --- one step ----------------------------------------------------------------------------------


def answer_reveal(play: Play) -> M.Game:
    game = play.game
    need = game.reveal
    assert need is not None
    if need.to is None:
        play.public |= set(need.cards)
        return M.revealed(game, {p: play.faces[p] for p in need.cards})
    # only the seat whose turn it is, or its teammate for a pass, is ever shown a hidden card
    expected = game.current
    if need.then == M.AFTER_PASS:
        expected = next(s for s in team(game.current, play.n) if s != game.current)
    assert need.to == expected, (need, game.current)
    if need.then == M.AFTER_LOOK:
        assert game.looking is not None and need.cards == game.piles[game.looking - 1]
    play.shown[need.to] |= set(need.cards)
    return M.revealed(game, {})


def missions_as_section_7_2(play: Play, offered: set[tuple[int, Branch]]) -> None:
    """The missions offered are exactly §7.2's, and a branch §7.2 forbids is refused.

    (A branch the card does not belong to cannot be refused in public: the card is face down.
    That lie is caught at the final reveal, a cheater test of the signed engine.)"""
    game, seat = play.game, play.game.current
    missions = [(p, f) for p, f in play.hand(seat) if card(f).kind is Kind.MISSION]
    if not missions:
        assert not offered
        return
    pw = play.powers()
    rivals = [o for o in range(game.n) if o not in team(seat, game.n)]
    open_to = []
    for i, b in enumerate(BRANCHES):
        own, best = pw[seat][i], max(pw[o][i] for o in rivals)
        allowed = own >= best if game.situation == COLD_STANDOFF else own > best
        if own > 0 and allowed and b not in game.mission_branches:
            open_to.append(b)
    assert offered == {(p, b) for p, f in missions for b in open_to if card(f).belongs_to(b)}
    closed = [(p, b) for p, _ in missions for b in BRANCHES if b not in open_to]
    if closed:  # one of them each time (an exception costs), not drawn: the game's draws stay
        p, b = closed[play.steps % len(closed)]
        with pytest.raises(Illegal):
            M.play_mission(game, seat, p, b, play.steps)


def decide(play: Play) -> M.Game:
    game = play.game
    seat = game.current
    hand = play.hand(seat)
    assert all(play.knows(seat, p) for p, _ in hand), f"seat {seat} holds a card it never saw"
    if game.phase == M.DRAFT:
        return M.draft_pick(game, seat, play.choose(game.draft))
    if game.phase == M.ACTION:
        assert not game.final and game.deck, "a turn with a recruit starts with cards in the deck"
        recruit = play.choose((True, False))
        after = M.choose_action(game, seat, recruit)
        if recruit:
            play.recruit = (game, None)
        return after
    if game.phase == M.RECRUIT:
        take = play.choose((True, False))
        if take:
            play.recruit = (game, game.looking)
        return M.pile_choice(game, seat, take)
    if game.phase == M.EFFECT:
        chosen = play.choose(M.effect_options(game, seat, hand))
        if chosen is None:
            return M.play_effect(game, seat, None, None)
        use, discard = chosen
        return M.play_effect(game, seat, replace(use, discard=None), discard)
    if game.phase == M.PAPER:
        excess = len(hand) - PAPER_TRAIL_HAND_LIMIT
        dropped = play.rng.sample([p for p, _ in hand], excess)
        play.choices.append(tuple(dropped))
        return M.paper_trail(game, seat, dropped)
    assert game.phase == M.DEPLOY
    options = M.deploy_options(game, seat, hand)
    if play.check:
        missions_as_section_7_2(play, {(o[1], o[2]) for o in options if o[0] == "play_mission"})
    chosen = play.choose(options)
    if chosen[0] == "play_agent":
        return M.play_agent(game, seat, chosen[1], chosen[2], chosen[3])
    if chosen[0] == "play_mission":
        after = M.play_mission(game, seat, chosen[1], chosen[2], play.steps)
        if game.situation != OPEN_SECRETS:
            assert after.reveal is None, "a face-down mission is shown to somebody"
        return after
    if chosen[0] == "pass_card":
        return M.pass_card(game, seat, chosen[1])
    return M.end_deploy(game, seat)


# --- the invariants ------------------------------------------------------------------------------


def one_place_each(play: Play) -> None:
    game = play.game
    positions = [*game.deck, *game.draft]
    for pile in game.piles:
        positions += pile
    for hand in game.hands:
        positions += hand
    for piles in game.missions:
        positions += [m.position for pile in piles for m in pile]
    assert len(set(positions)) == len(positions), "a position in two places"
    faces = [play.faces[p] for p in positions] + list(game.discard)
    for tableau in game.board.tableaux:
        for agent in tableau.agents():
            faces += [agent.card, *agent.funding]
    assert sorted(faces) == EVERY_CARD, "a card lost, doubled or made up"


def missions_in_place(play: Play) -> None:
    for seat, piles in enumerate(play.game.missions):
        for branch, pile in zip(BRANCHES, piles):
            for mission in pile:
                assert play.knows(seat, mission.position), "a mission its owner never saw"
                assert card(play.faces[mission.position]).belongs_to(branch)
                assert card(play.faces[mission.position]).kind is Kind.MISSION


def dominance_as_defined(play: Play) -> None:
    game = play.game
    pw = play.powers()
    for i, branch in enumerate(BRANCHES):
        sides = set()
        for s in range(game.n):
            rivals = [pw[o][i] for o in range(game.n) if o not in team(s, game.n)]
            expected = pw[s][i] > 0 and all(pw[s][i] > r for r in rivals)
            assert dominates(game.board, s, branch) == expected, (branch, pw, s)
            if expected:
                sides.add(team(s, game.n))
        assert len(sides) <= 1, f"two teams dominate {branch}: {pw}"


def recruit_as_section_6(play: Play, before: M.Game, taken: int | None) -> None:
    """§6 from the rule text: what the recruit gained, the refills and the deck afterwards."""
    after = play.game
    seat = before.current
    sizes = [len(p) for p in before.piles]
    last = 3 if taken is None else taken
    looked = [k for k in (1, 2, 3) if k <= last and sizes[k - 1] > 0]
    deck = list(before.deck)
    if taken is None:
        draws = 2 if before.situation == HIRING_SPREE else 1
        gained, deck = deck[:draws], deck[draws:]
    else:
        gained = list(before.piles[taken - 1])
    piles = [list(p) for p in before.piles]
    if taken is not None:
        piles[taken - 1] = []
    for k in looked:
        if not deck:
            break  # the end trigger: refills still due are skipped
        piles[k - 1].append(deck.pop(0))
    assert list(after.deck) == deck
    assert [list(p) for p in after.piles] == piles
    assert after.hands[seat] == before.hands[seat] + tuple(gained)
    if not after.deck:
        play.emptied_by = seat


def check(play: Play, before: M.Game) -> None:
    game = play.game
    moved = (game.deck, game.draft, game.piles, game.hands, game.missions, game.discard) != (
        before.deck, before.draft, before.piles, before.hands, before.missions, before.discard
    )
    if moved or game.board is not before.board:
        one_place_each(play)
    if game.missions is not before.missions:
        missions_in_place(play)
    if game.board is not before.board:
        dominance_as_defined(play)
    if play.recruit is not None and game.deck != before.deck:
        recruit_as_section_6(play, *play.recruit)
        play.recruit = None
    if before.phase == M.DRAFT and game.phase == M.ACTION:
        assert len(game.deck) == 73 - play.n and all(len(h) == 1 for h in game.hands)
        assert game.current == game.first
    if game.deck:
        assert game.final_turns is None and play.emptied_by is None
    new_turn = before.phase == M.DRAFT or game.current != before.current
    if new_turn and game.phase in (M.ACTION, M.DEPLOY):
        play.turns.append((game.current, game.phase, len(game.deck)))


def end_trigger(play: Play) -> None:
    """§9.1: after the emptying turn of seat ``e``, one Deploy each for ``e+1 … e+n``."""
    e = play.emptied_by
    assert e is not None, "the game ended with cards in the deck"
    n = play.n
    final = play.turns[-n:]
    assert [s for s, _, _ in final] == [(e + i) % n for i in range(1, n + 1)]
    assert all(phase == M.DEPLOY and deck == 0 for _, phase, deck in final)
    assert play.turns[-n - 1][0] == e  # e finished the turn that emptied the deck
    earlier = play.turns[: -n]
    assert all(phase == M.ACTION and deck > 0 for _, phase, deck in earlier)


def scored(play: Play) -> None:
    game = play.game
    board = M.board_with_missions(game, dict(enumerate(play.faces)))
    assert misplaced_missions(board) == ()
    result = score(board)
    assert result.points == tuple(
        sum(result.seat_points[s] for s in t) for t in result.teams
    )
    for m in result.missions:
        assert m.points == (card(m.mission).stars if m.holds else 0)
    best = max(result.points)
    assert all(result.points[result.teams.index(t)] == best for t in result.winners)


def play_game(n: int, first: int, situation: str | None, order: tuple[str, ...],
              seed: int, checked: bool = True) -> Play:
    """One whole game with random legal choices; ``checked``: every invariant at every step."""
    game = M.new_game(n, first, situation)
    play = Play(n, order, game, random.Random(seed), [set() for _ in range(n)], check=checked)
    while play.game.phase != M.END:
        before = play.game
        play.game = answer_reveal(play) if before.reveal is not None else decide(play)
        play.steps += 1
        if checked:
            check(play, before)
        assert play.steps < 5000, "the game does not end"
    if checked:
        end_trigger(play)
        scored(play)
    return play


# --- the properties ----------------------------------------------------------------------------


games = st.tuples(
    st.sampled_from((2, 3, 4)),
    st.integers(0, 3),
    st.one_of(st.none(), st.sampled_from(SITUATIONS)),  # about half the games without one
    st.permutations(DECK),
    st.integers(0, 1 << 32),
)


@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_model_games_keep_every_invariant_and_replay_the_same(
    drawn: tuple[int, int, str | None, list[str], int],
) -> None:
    n, first, situation, order, seed = drawn
    first %= n
    play = play_game(n, first, situation, tuple(order), seed)
    again = play_game(n, first, situation, tuple(order), seed, checked=False)
    assert again.game == play.game and again.choices == play.choices


def test_the_random_games_reach_every_kind_of_decision() -> None:
    """The driver is no happy path: over a few games it plays every kind of move."""
    kinds: Counter[str] = Counter()
    for i, (n, situation) in enumerate([(4, None), (3, PAPER_TRAIL), (2, None), (4, "S08")]):
        order = list(DECK)
        random.Random(i).shuffle(order)
        play = play_game(n, i % n, situation, tuple(order), 1000 + i)
        for choice in play.choices:
            if isinstance(choice, tuple) and choice and isinstance(choice[0], str):
                kinds[choice[0]] += 1
            elif isinstance(choice, tuple) and len(choice) == 2:
                kinds["effect"] += 1
        kinds["turns"] += len(play.turns)
    for kind in ("play_agent", "play_mission", "pass_card", "end_deploy", "effect"):
        assert kinds[kind], kinds
