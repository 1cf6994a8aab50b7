"""Liar's Dice, the sixth game (docs/adding-a-game.md): its rulebook's examples, its cheaters,
its forfeits. The conformance suite checks the rest, as for every game
(``tests/conformance``, which registers it)."""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import BadOpening, IllegalAction, OutOfTurn
from spycraft.engines import registry
from spycraft.engines.agent import Decision, RandomAgent
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.table import ABANDONED, FRAUD, NOT_JUDGED

from .liars_dice import model
from .liars_dice.definition import GAME
from .liars_dice.model import DICE, Bid, Game


def table(players: int = 2, seed: int = 1, wild: bool = False) -> LocalTable:
    options = GAME.genesis_options(players, {"wild_ones": wild})
    return new_local_table(GAME, options, players, SeededEntropy(seed))


def agents(players: int, seed: int = 1) -> list[RandomAgent]:
    return [RandomAgent(SeededEntropy(seed).child(f"a{i}")) for i in range(players)]


def until(local: LocalTable, kind: str, players: int) -> None:
    """Play on until the seat expected next is to write ``kind``."""
    bots = agents(players)
    while kind not in local.table.expect(local.state).kinds:
        local.step(bots)


def opened(g: Game, dice: list[tuple[int, ...]]) -> Game:
    for seat, cup in enumerate(dice):
        g = model.open_cup(g, seat, cup)
    return g


# --- the rulebook ----------------------------------------------------------------------------


def test_a_bid_is_higher_by_count_or_by_face_at_the_same_count() -> None:
    g = model.bid(model.start(2, False), 0, 2, 4)
    legal = model.legal_bids(g)
    assert legal[0] == (2, 5) and (2, 4) not in legal and (1, 6) not in legal
    assert legal[-1] == (2 * DICE, 6) and (3, 1) in legal
    assert model.legal_bids(model.bid(g, 1, 2 * DICE, 6)) == ()


def test_a_bid_that_holds_costs_the_caller_a_die_and_a_lie_costs_the_bidder() -> None:
    g = model.call(model.bid(model.start(2, False), 0, 2, 5), 1)
    holds = model.count(opened(g, [(1, 5, 6), (2, 3, 5)]))
    assert holds.dice == (DICE, DICE - 1) and holds.counted[-1].shown == 2
    assert holds.starter == 1 and holds.number == 2 and holds.bids == ()
    lie = model.count(opened(g, [(1, 5, 6), (2, 3, 4)]))
    assert lie.dice == (DICE - 1, DICE) and lie.starter == 0


def test_wild_ones_count_for_every_face_but_their_own() -> None:
    cups = [(1, 1, 5), (1, 5, 6)]
    assert model.shown(cups, 5, wild=True) == 5
    assert model.shown(cups, 5, wild=False) == 2
    assert model.shown(cups, 1, wild=True) == 3


def test_a_seat_without_dice_is_out_and_the_last_with_dice_wins() -> None:
    g = Game(3, False, (0, 1, 2), starter=2, cups=(None,) * 3, opened=(None,) * 3)
    assert model.in_play(g) == (1, 2) and model.after(g, 2) == 1 and model.after(g, 0) == 1
    g = model.call(model.bid(g, 2, 3, 6), 1)
    g = model.count(opened(g, [(), (6,), (6, 6)]))  # three sixes: the caller's last die goes
    assert g.dice == (0, 0, 2) and model.winner(g) == 2


# --- on the table ----------------------------------------------------------------------------


def test_a_whole_game_ends_with_the_last_dice_standing() -> None:
    for players in GAME.rules.seat_counts:
        local = table(players)
        state = local.run(agents(players))
        assert state.result is not None and state.result.reason == "last dice standing"
        (winner,) = [s for s in range(players) if state.game.game.dice[s]]
        assert state.result.winner == f"seat {winner}"


def test_a_bid_that_is_not_higher_or_counts_more_dice_than_there_are_is_illegal() -> None:
    local = table()
    until(local, "bid", 2)
    bots = agents(2)
    while not local.state.game.game.bids:
        local.step(bots)
    turn = local.table.expect(local.state)
    last = local.state.game.game.bids[-1]
    for body in ({"count": last.count, "face": last.face}, {"count": 2 * DICE + 1, "face": 2}):
        record = local.seats[turn.seat].sign(local.state, "bid", body)
        with pytest.raises(IllegalAction) as error:
            local.table.apply(local.state, record)
        assert (error.value.seat, error.value.seq) == (turn.seat, record.seq)


def test_nobody_calls_a_lie_before_the_rounds_first_bid() -> None:
    local = table()
    until(local, "bid", 2)
    turn = local.table.expect(local.state)
    assert turn.kinds == ("bid",)
    record = local.seats[turn.seat].sign(local.state, "liar", {})
    with pytest.raises(OutOfTurn):
        local.table.apply(local.state, record)


def test_a_cup_opened_with_another_nonce_is_a_false_opening_and_a_fraud() -> None:
    local = table()
    until(local, "open", 2)
    opener = local.table.expect(local.state).seat
    other = local.seats[1 - opener].game.nonce(1)  # type: ignore[attr-defined]
    cheat = local.seats[opener].sign(local.state, "open", {"nonce": other})
    with pytest.raises(BadOpening):
        local.table.apply(local.state, cheat)
    accusation = local.seats[1 - opener].sign(local.state, "fraud", {"evidence": [cheat.raw]})
    local.state = local.table.apply(local.state, accusation)
    local.records.append(accusation)
    result = local.run(agents(2)).result
    assert result is not None and result.reason == FRAUD
    assert result.winner == f"seat {1 - opener}" and result.forfeits == (opener,)


def test_a_cup_copied_from_another_seat_opens_for_nobody() -> None:
    local = table()
    bots = agents(2)
    local.step(bots)  # seat 0's cup
    copy = local.seats[1].sign(local.state, "cup", {"digest": local.state.game.game.cups[0]})
    local.state = local.table.apply(local.state, copy)  # a digest is any 32 bytes: accepted
    local.records.append(copy)
    until(local, "open", 2)
    while local.table.expect(local.state).seat != 1:
        local.step(bots)
    for nonce in (local.seats[0].game.nonce(1), local.seats[1].game.nonce(1)):  # type: ignore
        record = local.seats[1].sign(local.state, "open", {"nonce": nonce})
        with pytest.raises(BadOpening):
            local.table.apply(local.state, record)


class Counting:
    """An agent that answers with ``choice`` and counts how often it was asked."""

    def __init__(self, choice: int) -> None:
        self.choice, self.asked = choice, 0

    def decide(self, decision: Decision) -> int:
        self.asked += 1
        return self.choice


def test_a_seat_asked_again_at_the_same_seq_writes_the_same_record() -> None:
    local = table()
    bots = agents(2)
    until(local, "bid", 2)
    local.step(bots)  # the opening bid: the next seat may bid or call
    turn = local.table.expect(local.state)
    assert turn.kinds == ("bid", "liar")
    seat = local.seats[turn.seat]
    first = Counting(0)  # call it a lie
    kind, body = seat.game_body(local.state, turn, first)
    again = seat.game_body(local.state, turn, Counting(1))
    assert (kind, body) == again == ("liar", {}) and first.asked == 1


class Last:
    """Takes the last option offered but ``but``, and counts how often it was asked."""

    def __init__(self, but: int = 0) -> None:
        self.asked, self.but = 0, but

    def decide(self, decision: Decision) -> int:
        self.asked += 1
        return len(decision.options) - 1 - self.but


def two_opening_bids(local: LocalTable) -> tuple[Any, Any]:
    """The states after the opening bidder's two records for one place (its equivocation, or a
    record that another outranked after a rollback): the lowest bid, and the next to highest."""
    until(local, "bid", 2)
    before = local.state
    bidder = local.table.expect(before).seat
    low = local.seats[bidder].build(before, Counting(0))
    other = new_local_table(GAME, local.genesis.genesis.options, 2, SeededEntropy(1))
    high = other.seats[bidder].build(before, Last(but=1))  # the same seat, another memo
    assert low.record.seq == high.record.seq and low.raw != high.raw
    return local.table.apply(before, low), local.table.apply(before, high)


def test_a_seat_asked_at_its_seq_on_another_branch_is_asked_again() -> None:
    # The bidder before it wrote two records for one place (its equivocation, or a record that
    # another outranked after a rollback): our seat built on the lowest opening bid, then finds
    # itself at the same seq after the next to highest, where one bid is left. The answer it gave
    # on the other branch is not this decision's: it is asked again (it was handed an option
    # index beyond the options: an IndexError, which no ``SpycraftError`` handler catches, out
    # of the peer's session; red team).
    local = table()
    after_low, after_high = two_opening_bids(local)
    bidder = local.table.expect(local.state).seat
    turn = local.table.expect(after_low)
    assert turn == local.table.expect(after_high) and turn.seat != bidder
    seat = local.seats[turn.seat]
    on_low = Last()
    assert seat.game_body(after_low, turn, on_low)[0] == "bid" and on_low.asked == 1
    on_high = Counting(0)  # call it a lie, or bid the highest
    assert seat.game_body(after_high, turn, on_high) == ("liar", {}) and on_high.asked == 1
    # back on the first branch: the memo kept the last place only, so the seat is asked again
    # (a session never asks it there: it sends the record it signed at that place, ``own``)
    again = Counting(1)
    assert seat.game_body(after_low, turn, again)[0] == "bid" and again.asked == 1


def test_a_seat_writing_at_its_seq_on_another_branch_draws_a_stream_of_that_place() -> None:
    # Its cup's commitment on each branch hides other dice (a bid and a call are public, but
    # the rule is the kit's): from one stream, two proofs at one seq would give its key share
    # away, two encryptions the ratio of their plaintexts. The first place keeps the stream a
    # game without a rollback always had; a rebuild at a place draws that place's again.
    local = table()
    branches = two_opening_bids(local)
    turn = local.table.expect(branches[0])
    table_seat = local.seats[turn.seat]
    seat = table_seat.game
    seq = branches[0].seq + 1
    streams = []
    for state in (*branches, branches[0]):
        table_seat.game_body(state, turn, Last())
        streams.append(seat.entropy("bid", seq, seat.place_of(seq)).take(32))
    assert streams[0] != streams[1] and streams[2] == streams[0]
    assert streams[0] == seat.entropy("bid", seq).take(32)  # the first place: as it always was
    assert seat.context.memo[f"place/{seq}"] == branches[0].link


def test_a_seat_absent_while_the_cups_are_opened_leaves_the_call_unjudged() -> None:
    local = table(3, seed=2)
    until(local, "open", 3)
    local.step(agents(3))  # one cup open: the next opener knows more than its own dice
    caller = local.state.game.game.caller
    called_at = local.state.game.called_at
    gone = local.table.expect(local.state).seat
    votes = {v: local.seats[v].absence_vote(local.state) for v in range(3) if v != gone}
    voter = min(votes)
    abandon = local.seats[voter].sign_abandon(local.state, votes)
    local.state = local.table.apply(local.state, abandon)
    local.records.append(abandon)
    (forfeit,) = local.state.forfeits
    assert forfeit.what == "deserted after seeing its dice and the cups opened before its own"
    result = local.run(agents(3)).result
    assert result is not None and result.winner is None and result.forfeits == (gone,)
    assert result.unjudged == (
        f"seat {caller}'s liar call at record {called_at} (it needs seat {gone}'s dice)",)
    assert NOT_JUDGED in result.detail


def test_a_seat_absent_before_any_dice_are_rolled_leaves_nothing_to_open() -> None:
    local = table(2)
    votes = {1: local.seats[1].absence_vote(local.state)}
    local.state = local.table.apply(local.state, local.seats[1].sign_abandon(local.state, votes))
    assert local.table.expect(local.state).kinds == ("result",)
    result = local.table.need(local.state)
    assert result.reason == ABANDONED and result.winner is None  # one party's word at two seats


def test_the_product_does_not_offer_it() -> None:
    assert "liars-dice" not in registry.game_names()


def bid_words(count: int, face: int) -> str:
    return Bid(0, count, face).words()


@pytest.mark.parametrize(("count", "face", "words"), [(1, 6, "1 six"), (3, 5, "3 fives"),
                                                      (2, 1, "2 ones")])
def test_a_bid_reads_as_people_say_it(count: int, face: int, words: Any) -> None:
    assert bid_words(count, face) == words


def test_the_kit_unwraps_a_table_state_once_though_the_game_state_has_a_game_field() -> None:
    from spycraft.engines.table import game_state

    local = table()
    assert game_state(local.state) is local.state.game
    assert game_state(local.state.game) is local.state.game  # its field ``game``: the rulebook's
