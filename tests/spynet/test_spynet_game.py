"""SpyNet played on the kit: the worked examples through the engine, cheaters, leaks, invariants.

Every game here is a real table (``engines.local``): seats build and sign every record, the
engine checks every proof. A cheater is a record signed by a real seat with a body its honest
seat would not write; each test asserts the error type, the seat and the seq.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.crypto import proofs
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import (
    BadOpening,
    IllegalAction,
    InvalidProof,
    MalformedValue,
    RecordError,
)
from spycraft.crypto.group import Scalar
from spycraft.crypto.records import Record, SignedRecord
from spycraft.engines.evolve import evolve
from spycraft.engines.game import record_context
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.protocols import deck_ops
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet import setup as SU
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.cards import BRANCHES, Kind, card
from spycraft.engines.spynet.rules import (
    DECISION_KINDS,
    FACES,
    TIE_BREAK,
    State,
    mission_points,
    mission_statement,
)
from spycraft.engines.spynet.scoring import dominates, teammate
from spycraft.engines.table import FRAUD, SHARED, Forfeit, Over, TableState, Turn, settle

NATURAL = ("score", TIE_BREAK, SHARED)  # the reasons of a game played to its end


def new_table(players: int, seed: int, situation: str = "off", bot: str = "random") -> Any:
    entropy = SeededEntropy(seed)
    local = new_local_table(GAME, {"situation": situation}, players, entropy)
    agents = [BOTS[bot](entropy.child(f"bot/{i}"), i) for i in range(players)]
    return local, agents


def play_until(
    local: LocalTable, agents: list[Any], found: Callable[[TableState[State], Turn], bool]
) -> Turn:
    """Step the table until ``found(state, turn)`` holds for the next turn; fail at the end."""
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None, "the game ended before the moment was found"
        if found(local.state, turn):
            return turn
        local.step(agents)


def forge(local: LocalTable, seat: int, kind: str, body: Any) -> SignedRecord:
    return local.seats[seat].sign(local.state, kind, body)


def accept(local: LocalTable, signed: SignedRecord) -> None:
    local.state = local.table.apply(local.state, signed)
    local.records.append(signed)


def refused(local: LocalTable, signed: SignedRecord, error: type[RecordError]) -> RecordError:
    with pytest.raises(error) as caught:
        local.table.apply(local.state, signed)
    assert (caught.value.seat, caught.value.seq) == (signed.record.seat, signed.record.seq)
    return caught.value


def game_of(state: TableState[State]) -> M.Game:
    game = state.game.game
    assert game is not None
    return game


def deploying(state: TableState[State], turn: Turn) -> bool:
    return turn.kinds == DECISION_KINDS


# --- the worked examples of §14 through the engine -------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_example_14_1_the_draft_runs_right_from_the_first_player_and_leaves_73_minus_n(
    players: int,
) -> None:
    local, agents = new_table(players, 11)
    drafters: list[int] = []
    play_until(local, agents, lambda s, t: s.game.game is not None)
    first = game_of(local.state).first

    def begun(state: TableState[State], turn: Turn) -> bool:
        if turn.kinds == ("draft_pick",) and turn.seat not in drafters:
            drafters.append(turn.seat)
        return turn.kinds == ("action",)

    turn = play_until(local, agents, begun)
    assert drafters == [(first - 1 - i) % players for i in range(players - 1)]
    assert turn.seat == first
    game = game_of(local.state)
    assert len(game.deck) == SU.deck_after_setup(players) == 73 - players
    assert all(len(hand) == 1 for hand in game.hands)
    assert [len(p) for p in game.piles] == [1, 1, 1]
    kept = {seat: position for seat, position in game.drafted}
    for seat in range(players):  # each drafter saw every card handed to it, nobody else's
        position = game.hands[seat][0]
        assert seat in local.state.game.ops.viewers[position]
        assert kept.get(seat, position) == position


def test_example_14_2_a_returned_pile_card_is_known_to_its_looker_only() -> None:
    local, agents = new_table(3, 4)

    def looked_then_returned(state: TableState[State], turn: Turn) -> bool:
        game = state.game.game
        return game is not None and game.phase == M.RECRUIT and 1 in game.returned

    play_until(local, agents, looked_then_returned)
    state = local.state.game
    game = game_of(local.state)
    looker = game.current
    returned = game.piles[0]
    ops = state.ops
    for seat in local.seats:
        faces = [seat.game.face(state, p) for p in returned]
        if seat.index == looker:
            assert None not in faces
        else:
            assert all(
                f is None for p, f in zip(returned, faces) if seat.index not in ops.viewers[p]
            )
    assert all(looker in ops.viewers[p] for p in returned)


def test_example_14_8_the_deck_emptied_by_a_recruit_starts_one_deploy_each_ending_with_e() -> None:
    local, agents = new_table(4, 2)
    current: list[int] = []  # the seat whose turn it was before each record

    def empty(state: TableState[State], turn: Turn) -> bool:
        game = state.game.game
        if game is not None and game.deck:
            current.append(game.current)
        return game is not None and not game.deck

    play_until(local, agents, empty)
    e = current[-1]  # the seat whose recruit took the deck's last card
    finals: list[int] = []

    def finished(state: TableState[State], turn: Turn) -> bool:
        game = state.game.game
        assert game is not None
        assert turn.kinds != ("action",), "every final turn is a Deploy"
        if game.phase == M.DEPLOY and (not finals or finals[-1] != game.current):
            finals.append(game.current)
        return game.phase == M.END

    play_until(local, agents, finished)
    assert finals == [(e + i) % 4 for i in range(1, 5)]


# --- cheaters: each caught with its seat and seq ---------------------------------------------


def test_a_card_played_that_is_not_in_the_hand_is_refused() -> None:
    local, agents = new_table(2, 5)
    turn = play_until(local, agents, deploying)
    game = game_of(local.state)
    body = {"card": game.deck[0], "branch": "INT", "funding": []}
    refused(local, forge(local, turn.seat, "play_agent", body), IllegalAction)


def test_a_pile_card_claimed_without_taking_the_pile_is_refused() -> None:
    local, agents = new_table(3, 6)
    turn = play_until(local, agents, deploying)
    game = game_of(local.state)
    body = {"card": game.piles[0][0], "branch": "OPS", "funding": []}
    refused(local, forge(local, turn.seat, "play_agent", body), IllegalAction)


def test_a_false_reveal_token_is_caught_at_once() -> None:
    local, agents = new_table(2, 7)

    def public_duty(state: TableState[State], turn: Turn) -> bool:
        ops = state.game.ops
        return turn.kinds == ("deck_tokens",) and ops.pending is not None and any(
            deck_ops.duty(ops, turn.seat, c, ops.pending.to) == deck_ops.PUBLISH
            for c in ops.pending.cards
        )

    turn = play_until(local, agents, public_duty)
    state = local.state.game
    seq = local.state.seq + 1
    record_context = context_of_seq(state, seq, turn.seat)
    liar = deck_ops.DeckHand(turn.seat, Scalar.random(SeededEntropy(b"liar" * 8)))
    body = liar.deck_tokens(state.ops, record_context, SeededEntropy(1))
    refused(local, forge(local, turn.seat, "deck_tokens", body), InvalidProof)


def context_of_seq(state: State, seq: int, seat: int) -> bytes:
    return record_context("spynet", Record(state.table, seq, b"", seat, "deck_tokens", {}))


def test_a_bad_shuffle_is_caught_at_once() -> None:
    local, agents = new_table(3, 8)
    turn = play_until(local, agents, lambda s, t: t.kinds == ("deck_shuffle",) and t.seat == 1)
    honest = local.seats[1].build(local.state, agents[1])
    cards = list(honest.record.body["cards"])
    cards[0], cards[1] = cards[1], cards[0]
    body = {"cards": cards, "proof": honest.record.body["proof"]}
    refused(local, forge(local, turn.seat, "deck_shuffle", body), InvalidProof)


def test_a_mission_in_a_branch_the_seat_does_not_dominate_is_refused() -> None:
    local, agents = new_table(2, 9)

    def stuck(state: TableState[State], turn: Turn) -> bool:
        game = state.game.game
        return deploying(state, turn) and game is not None and any(
            not dominates(game.board, turn.seat, b) for b in BRANCHES
        ) and bool(game.hands[turn.seat])

    turn = play_until(local, agents, stuck)
    game = game_of(local.state)
    branch = next(b for b in BRANCHES if not dominates(game.board, turn.seat, b))
    body = {"card": game.hands[turn.seat][0], "branch": str(branch), "proof": None}
    error = refused(local, forge(local, turn.seat, "play_mission", body), IllegalAction)
    assert "does not dominate" in error.what


def test_a_second_teammate_pass_in_one_turn_is_refused() -> None:
    local, agents = new_table(4, 10)

    def two_cards(state: TableState[State], turn: Turn) -> bool:
        game = state.game.game
        return deploying(state, turn) and game is not None and len(game.hands[turn.seat]) >= 2

    turn = play_until(local, agents, two_cards)
    giver = turn.seat
    hand = game_of(local.state).hands[giver]
    accept(local, forge(local, giver, "pass_card", {"card": hand[0]}))
    mate = teammate(giver, 4)
    assert mate is not None and hand[0] in game_of(local.state).hands[mate]
    play_until(local, agents, deploying)
    assert game_of(local.state).current == giver and game_of(local.state).passed
    refused(local, forge(local, giver, "pass_card", {"card": hand[1]}), IllegalAction)


def test_a_false_key_share_opening_at_the_final_reveal_is_refused() -> None:
    local, agents = new_table(2, 12)
    turn = play_until(local, agents, lambda s, t: t.kinds == ("reveal",))
    body = {"secret": Scalar.random(SeededEntropy(b"x" * 32)).encode()}
    refused(local, forge(local, turn.seat, "reveal", body), BadOpening)


def test_a_card_that_is_no_mission_played_face_down_is_refused_at_once_even_if_it_came_sealed(
) -> None:
    """Every other token of a card in a hand is public or sealed to its holder, so even a card
    passed on in the draft has a statement, and no proof can make a non-mission a mission."""
    for seed in range(13, 40):
        local, agents = new_table(2, seed)

        def may_lie(state: TableState[State], turn: Turn, local: LocalTable = local) -> bool:
            game = state.game.game
            if not deploying(state, turn) or game is None:
                return False
            seat = local.seats[turn.seat].game
            return any(dominates(game.board, turn.seat, b) for b in BRANCHES) and any(
                card(f).kind is not Kind.MISSION and sealed_to(state, turn.seat, p)
                for p, f in seat.hand_faces(state.game)
            )

        try:
            turn = play_until(local, agents, may_lie)
        except AssertionError:
            continue
        liar = turn.seat
        game = game_of(local.state)
        seat = local.seats[liar].game
        position = next(
            p for p, f in seat.hand_faces(local.state.game)
            if card(f).kind is not Kind.MISSION and sealed_to(local.state, liar, p)
        )
        branch = next(b for b in BRANCHES if dominates(game.board, liar, b))
        statement = mission_statement(local.state.game, liar, position)
        assert statement is not None
        context = seat.context_of(local.state.game, local.state.seq + 1, "play_mission")
        proof = proofs.prove_encrypts_one_of(
            statement[0], seat.public, statement[1], mission_points(branch), 0, seat.key,
            context, seat.entropy("play_mission", local.state.seq + 1),
        )
        body = {"card": position, "branch": str(branch), "proof": proof.encode()}
        refused(local, forge(local, liar, "play_mission", body), InvalidProof)
        return
    pytest.fail("no seed gave a sealed non-mission card to play face down")


def sealed_to(state: TableState[State], seat: int, position: int) -> bool:
    return any(s.card == position and s.receiver == seat for s in state.game.ops.seals)


def test_a_play_whose_public_faces_are_no_agent_forfeits_its_writer() -> None:
    local, agents = new_table(2, 14)

    def holds_funding(state: TableState[State], turn: Turn) -> bool:
        if not deploying(state, turn):
            return False
        seat = local.seats[turn.seat].game
        return any(card(f).kind is Kind.FUNDING for _, f in seat.hand_faces(state.game))

    turn = play_until(local, agents, holds_funding)
    seat = local.seats[turn.seat].game
    position = next(
        p for p, f in seat.hand_faces(local.state.game) if card(f).kind is Kind.FUNDING
    )
    lie = forge(local, turn.seat, "play_agent", {"card": position, "branch": "INT", "funding": []})
    accept(local, lie)
    final = local.run(agents)
    assert final.result is not None
    assert final.result.forfeits == (turn.seat,) and final.result.evidence == (lie.seq,)
    assert final.result.reason == FRAUD


def test_an_unknown_branch_is_a_refused_choice() -> None:
    local, agents = new_table(2, 15)
    turn = play_until(local, agents, deploying)
    hand = game_of(local.state).hands[turn.seat]
    body = {"card": hand[0], "branch": "XYZ", "funding": []}
    refused(local, forge(local, turn.seat, "play_agent", body), IllegalAction)
    with pytest.raises(Exception) as info:
        card("Z99")
    assert isinstance(info.value, MalformedValue)


# --- invariants over whole games ---------------------------------------------------------------


def check_invariants(state: State) -> None:
    game = state.game
    if game is None:
        return
    places = M.where(game)
    in_play = sum(1 + len(a.funding) for t in game.board.tableaux for a in t.agents())
    assert len(places) + in_play + len(game.discard) == SU.DECK_SIZE
    assert len(set(places)) == len(places)
    if game.final_turns is not None:
        assert not game.deck
    for branch in BRANCHES:
        dominant = [s for s in range(state.n) if dominates(game.board, s, branch)]
        sides = {frozenset((s, teammate(s, state.n))) - {None} for s in dominant}
        assert len(sides) <= 1


@pytest.mark.parametrize(
    ("players", "situation", "seed"),
    [(2, "off", 40), (3, "random", 41), (4, "off", 42), (4, "S07", 43), (3, "S03", 44),
     (2, "S06", 45), (4, "S08", 46)],
)
def test_whole_games_keep_every_card_in_one_place_and_replay_to_the_same_bytes(
    players: int, situation: str, seed: int
) -> None:
    local, agents = new_table(players, seed, situation)
    final = local.run(agents, on_record=lambda signed, state: check_invariants(state.game))
    assert final.result is not None and final.result.reason in NATURAL
    again, agents = new_table(players, seed, situation)
    again.run(agents)
    assert again.transcript.to_bytes() == local.transcript.to_bytes()
    faces = final.game.faces
    assert sorted(faces) == sorted(FACES.labels)


def test_a_forfeit_while_a_reveal_is_open_goes_straight_to_the_final_reveal() -> None:
    local, agents = new_table(3, 50)
    turn = play_until(
        local, agents, lambda s, t: t.kinds == ("deck_tokens",) and s.game.game is not None
    )
    state = local.state.game
    accused = turn.seat
    forfeited = local.table.rules.forfeit(state, accused, local.state.seq + 1, FRAUD)
    after = local.table.rules.next(forfeited)
    # a fraud in play is settled by a ready stage before anything opens (red team 24) ...
    assert isinstance(after, Turn) and after.kinds == ("ready",) and after.seat != accused
    others = tuple(seat for seat in range(3) if seat != accused)
    after = local.table.rules.next(evolve(forfeited, ready=others))
    # ... then the final reveal, the deck reveal left open
    assert isinstance(after, Turn) and after.kinds == ("reveal",) and after.seat != accused


# Whole random signed games, for the engine path: 4 a run (SPYNET_PROPERTY_GAMES for more). The
# issue's 200 random games a run are played on the model in test_spynet_properties.
PROPERTY_GAMES = int(os.environ.get("SPYNET_PROPERTY_GAMES", "4"))


@settings(max_examples=PROPERTY_GAMES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    players=st.sampled_from((2, 3, 4)),
    situation=st.sampled_from(SU.SITUATION_OPTIONS),
    seed=st.integers(0, 1 << 30),
)
def test_random_games_keep_every_invariant_and_end_with_a_scored_result(
    players: int, situation: str, seed: int
) -> None:
    local, agents = new_table(players, seed, situation)
    final = local.run(agents, on_record=lambda signed, state: check_invariants(state.game))
    assert final.result is not None and final.result.reason in NATURAL
    assert final.game.final is not None
    assert final.game.final.points == tuple(
        sum(final.game.final.seat_points[s] for s in team) for team in final.game.final.teams
    )


def test_a_two_seat_cheater_loses_to_its_opponent_alone_whatever_sides_the_game_declares() -> None:
    cheat = Forfeit(0, 77, FRAUD, "rule violation: a false mission")
    sides = GAME.rules.sides
    result = settle(2, sides, lambda seat: f"seat {seat}", [cheat], Over(None))
    assert result.winner == "seat 1" and result.forfeits == (0,) and result.evidence == (77,)
    def side_of(seat: int) -> str | None:
        return None if seat == 2 else f"seat {seat}"

    unknown = settle(3, sides, side_of, [cheat], Over(None))
    assert unknown.winner is None  # a side not yet known keeps every declared side in play
