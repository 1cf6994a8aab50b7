"""The table lifecycle, chain, signatures, beacon, interrupts and audit, on a toy game."""

from dataclasses import replace

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import (
    BadOpening,
    BadSignature,
    ChainBroken,
    IllegalAction,
    MalformedRecord,
    OutOfTurn,
)
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import Record, parse_record, sign_record
from spycraft.engines.agent import RandomAgent
from spycraft.engines.local import new_local_table
from spycraft.engines.table import (
    ABANDONED,
    DESERTED,
    FRAUD,
    Forfeit,
    Over,
    Result,
    Turn,
    Unjudged,
    settle,
)
from tests.foundation.toy import GAME


def new_table(seed=1):
    return new_local_table(GAME, {}, 2, SeededEntropy(seed))


def agents(seed=1):
    return [RandomAgent(SeededEntropy(seed).child(f"a{i}")) for i in range(2)]


def test_a_whole_game_ends_with_a_result_record():
    local = new_table()
    state = local.run(agents())
    assert state.result is not None
    assert local.records[-1].record.kind == "result"
    assert local.table.expect(state) is None


def test_the_same_seed_gives_byte_identical_transcripts():
    a, b = new_table(5), new_table(5)
    a.run(agents(5))
    b.run(agents(5))
    assert a.transcript.to_bytes() == b.transcript.to_bytes()
    c = new_table(6)
    c.run(agents(6))
    assert c.transcript.to_bytes() != a.transcript.to_bytes()


def test_beacon_rounds_take_one_preimage_per_seat_in_seat_order():
    local = new_table()
    local.run(agents())
    beacons = [(r.seq, r.seat) for r in local.records if r.record.kind == "beacon"]
    assert [seat for _, seat in beacons] == [0, 1, 0, 1]


def test_a_record_for_another_seat_is_out_of_turn():
    local = new_table()
    record = local.seats[1].sign(local.state, "coin", {"commit": b"x" * 32})
    with pytest.raises(OutOfTurn) as err:
        local.table.apply(local.state, record)
    assert (err.value.seat, err.value.seq) == (1, 1)


def test_a_record_signed_with_another_key_is_a_bad_signature():
    local = new_table()
    forged = sign_record(
        Record(local.state.genesis.table, 1, local.state.link, 0, "coin", {"commit": b"x" * 32}),
        Identity(b"\x07" * 32),
    )
    with pytest.raises(BadSignature) as err:
        local.table.apply(local.state, forged)
    assert (err.value.seat, err.value.seq) == (0, 1)


def test_replayed_skipped_and_foreign_records_break_the_chain():
    local = new_table()
    first = local.step(agents())
    assert first is not None
    with pytest.raises(ChainBroken):  # replay of seq 1
        local.table.apply(local.state, first)
    skip = local.seats[1].sign(
        replace(local.state, seq=local.state.seq + 1), "coin", {"commit": b"y" * 32}
    )
    with pytest.raises(ChainBroken):
        local.table.apply(local.state, skip)
    other = new_table(9)
    foreign = other.seats[1].sign(
        replace(local.state, genesis=other.state.genesis), "coin", {"commit": b"y" * 32}
    )
    with pytest.raises(ChainBroken) as err:
        local.table.apply(local.state, foreign)
    assert "another table" in err.value.what


def test_a_false_beacon_preimage_is_rejected():
    local = new_table()
    a = agents()
    local.step(a), local.step(a)
    record = local.seats[0].sign(local.state, "beacon", {"preimage": b"\x00" * 32})
    with pytest.raises(IllegalAction) as err:
        local.table.apply(local.state, record)
    assert (err.value.seat, err.value.seq) == (0, 3)


def test_a_false_result_is_rejected():
    local = new_table()
    a = agents()
    while local.table.expect(local.state).kinds != ("result",):
        local.step(a)
    writer = local.table.expect(local.state).seat
    record = local.seats[writer].sign(local.state, "result", {"winner": "me", "reason": "x",
                                                               "forfeits": [], "evidence": [],
                                                               "detail": ""})
    with pytest.raises(IllegalAction):
        local.table.apply(local.state, record)


def test_fraud_evidence_makes_the_cheater_forfeit():
    local = new_table()
    a = agents()
    local.step(a), local.step(a), local.step(a), local.step(a)  # commits and beacon
    cheat = local.seats[0].sign(local.state, "open", {"coin": 0, "nonce": b"\x01" * 32})
    with pytest.raises(BadOpening):
        local.table.apply(local.state, cheat)
    accusation = local.seats[1].sign(local.state, "fraud", {"evidence": [cheat.raw]})
    state = local.table.apply(local.state, accusation)
    assert state.incidents[0].seat == 0 and state.incidents[0].kind == "fraud"
    assert "false opening" in state.incidents[0].what
    assert local.table.need(state).forfeits == (0,)
    assert local.table.need(state).reason == FRAUD


def test_fraud_evidence_that_is_valid_is_itself_rejected():
    local = new_table()
    honest = local.seats[0].build(local.state, agents()[0])
    accusation = local.seats[1].sign(local.state, "fraud", {"evidence": [honest.raw]})
    with pytest.raises(IllegalAction) as err:
        local.table.apply(local.state, accusation)
    assert err.value.seat == 1


def test_equivocation_is_proven_by_two_signed_records_for_one_seq():
    local = new_table()
    one = local.seats[0].sign(local.state, "coin", {"commit": b"a" * 32})
    two = local.seats[0].sign(local.state, "coin", {"commit": b"b" * 32})
    local.state = local.table.apply(local.state, one)
    accusation = local.seats[1].sign(local.state, "fraud", {"evidence": [one.raw, two.raw]})
    state = local.table.apply(local.state, accusation)
    assert (state.incidents[0].seat, state.incidents[0].reporter) == (0, 1)
    assert "equivocation" in state.incidents[0].what
    assert local.table.need(state).forfeits == (0,)
    self_accusation = local.seats[0].sign(local.state, "fraud", {"evidence": [one.raw, two.raw]})
    with pytest.raises(IllegalAction):
        local.table.apply(local.state, self_accusation)


def test_an_abandon_names_the_stalled_seat():
    local = new_table()
    vote = local.seats[1].absence_vote(local.state)
    record = local.seats[1].sign_abandon(local.state, {1: vote})
    state = local.table.apply(local.state, record)
    assert local.table.need(state).forfeits == (0,)
    wrong = local.seats[0].sign(local.state, "abandon", {"seat": 1, "votes": [[1, vote]]})
    with pytest.raises((OutOfTurn, MalformedRecord, IllegalAction)):
        local.table.apply(local.state, wrong)


def test_an_abandon_without_the_accusers_own_valid_vote_is_refused():
    local = new_table()
    old = local.seats[1].sign(local.state, "abandon", {"seat": 0, "reason": "no answer in 60 s"})
    with pytest.raises(MalformedRecord):
        local.table.apply(local.state, old)
    unsigned = local.seats[1].sign(local.state, "abandon", {"seat": 0, "votes": [[1, bytes(64)]]})
    with pytest.raises(IllegalAction, match="vote is not valid"):
        local.table.apply(local.state, unsigned)
    no_votes = local.seats[1].sign(local.state, "abandon", {"seat": 0, "votes": []})
    with pytest.raises(IllegalAction, match="needs the votes of 1"):
        local.table.apply(local.state, no_votes)


def test_malformed_cose_is_rejected_with_a_clear_error():
    with pytest.raises(MalformedRecord):
        parse_record(b"\xd2\x84")
    with pytest.raises(MalformedRecord):
        parse_record(b"\x00")


def test_once_the_game_is_over_nobody_can_forfeit_and_any_seat_may_write_the_result():
    local = new_table()
    a = agents()
    while local.table.expect(local.state).kinds != ("result",):
        local.step(a)
    writer = local.table.expect(local.state).seat
    other = 1 - writer
    late_abandon = local.seats[other].sign(
        local.state, "abandon", {"seat": writer, "votes": [[other, bytes(64)]]}
    )
    with pytest.raises(OutOfTurn):
        local.table.apply(local.state, late_abandon)
    result = local.seats[other].sign_result(local.state)
    state = local.table.apply(local.state, result)
    assert state.result is not None and local.table.expect(state) is None


# --- the one forfeit rule (table.settle) -------------------------------------------------------

SIDES = ("light", "dark")
SIDE = {0: "light", 1: "dark", 2: "light", 3: "dark", 4: None}
NATURAL = Over(Result("light", "points"))


def settled(seats: int, *forfeits: Forfeit) -> Result:
    """The result of forfeits that stopped play (the game then has no natural result)."""
    return settle(seats, SIDES, SIDE.get, forfeits, Over(None) if forfeits else NATURAL)


def test_without_a_forfeit_the_result_is_the_natural_one() -> None:
    assert settled(4) == Result("light", "points")


def test_a_cheaters_side_loses_and_two_cheating_sides_leave_no_winner() -> None:
    one = settled(4, Forfeit(0, 9, FRAUD, "false opening", 1))
    assert (one.winner, one.reason, one.forfeits, one.evidence) == ("dark", FRAUD, (0,), (9,))
    both = settled(4, Forfeit(0, 9, FRAUD, "x", 1), Forfeit(1, 12, FRAUD, "y", 2))
    assert (both.winner, both.reason, both.forfeits) == (None, FRAUD, (0, 1))


def test_two_abandons_on_two_sides_are_abandoned_not_fraud() -> None:
    light, dark = Forfeit(0, 9, ABANDONED, "abandoned", 1), Forfeit(1, 12, ABANDONED, "x", 2)
    result = settled(4, light, dark)
    assert (result.winner, result.reason) == (None, ABANDONED)
    alone = settled(4, Forfeit(2, 9, ABANDONED, "abandoned", 1))
    assert (alone.winner, alone.reason) == ("dark", ABANDONED)


def test_an_abandon_between_two_seats_is_only_claimed() -> None:
    result = settled(2, Forfeit(1, 30, ABANDONED, "abandoned", 0))
    assert (result.winner, result.reason, result.forfeits) == (None, ABANDONED, (1,))
    assert result.describe().startswith("abandoned, claimed by seat 0: no winner, no fraud")
    cheat = settled(2, Forfeit(1, 30, FRAUD, "false opening", 0))
    assert cheat.winner == "light"


def test_a_deserter_is_named_and_an_unknown_side_leaves_no_winner() -> None:
    result = settled(5, Forfeit(4, 7, DESERTED, "deserted after seeing its role", 0))
    assert (result.winner, result.reason, result.forfeits) == (None, DESERTED, (4,))
    assert "deserted after seeing its role" in result.detail and "not known" in result.detail
    fraud_wins = settled(5, Forfeit(4, 7, DESERTED, "d", 0), Forfeit(3, 9, FRAUD, "f", 0))
    assert fraud_wins.reason == FRAUD and fraud_wins.winner is None


def test_the_last_mover_of_a_beacon_round_that_stalls_deserted_after_seeing_the_draw():
    """Issue 17, item 5: seat 1 reveals last and knows the draw first; walking away there is a
    desertion by name, and with two seats it is still only claimed (docs/rulings.md)."""
    local = new_table()
    a = agents()
    while local.table.expect(local.state).kinds != ("beacon",):
        local.step(a)
    local.step(a)  # seat 0's pre-image: seat 1 alone now knows the round's seed
    assert local.table.expect(local.state).seat == 1
    votes = {0: local.seats[0].absence_vote(local.state)}
    abandon = local.seats[0].sign_abandon(local.state, votes)
    local.state = local.table.apply(local.state, abandon)
    local.records.append(abandon)
    (forfeit,) = local.state.forfeits
    assert (forfeit.seat, forfeit.seq, forfeit.reason) == (1, abandon.seq, DESERTED)
    assert forfeit.what == "deserted after seeing the draw"
    result = local.run(a).result
    assert (result.winner, result.reason, result.forfeits) == (None, ABANDONED, (1,))
    assert result.describe() == (
        f"abandoned, claimed by seat 0: no winner, no fraud; forfeit by seat 1 (declared absent "
        f"at record {abandon.seq}); seat 1 at record {abandon.seq}: deserted after seeing the draw"
    )


def test_what_a_forfeit_leaves_unjudged_is_written_into_the_result():
    gone = Forfeit(2, 40, ABANDONED, "abandoned", 0)
    over = Over(None, (), (
        Unjudged(2, 31, "answer", "seat 2's role"),
        Unjudged(2, 35, "answer", "seat 2's role"),
        Unjudged(0, 33, "answer", "the kind of the tool seat 2 gave seat 0"),
        Unjudged(1, 21, "spy tag", "seat 2's key share"),
        Unjudged(3, 22, "spy tag", "seat 2's key share"),
    ))
    result = settle(4, SIDES, SIDE.get, [gone], over)
    assert result.winner == "dark" and result.unjudged == (
        "seat 2's answers at records 31, 35 (they need seat 2's role)",
        "seat 0's answer at record 33 (it needs the kind of the tool seat 2 gave seat 0)",
        "the spy tags of seats 1, 3 at records 21, 22 (they need seat 2's key share)",
    )
    assert result.detail == (
        "seat 2 at record 40: abandoned; not judged (a forfeiter's secrets stayed closed): "
        + "; ".join(result.unjudged)
    )
    assert settle(4, SIDES, SIDE.get, [], Over(NATURAL.natural, (), over.unjudged)) == (
        NATURAL.natural
    )


def test_a_seat_proven_to_equivocate_forfeits_once_and_the_same_pair_proves_nothing_again() -> (
    None
):
    """Red team (issue 18): ``check_evidence`` takes an equivocation pair against any seat at any
    time, and a fraud record is an interrupt, first in the order at any place; so two seats
    (five-seat Resistance, 30 records in) wrote 50 fraud records with one pair of seat 1's, all
    accepted, seat 1 forfeiting 50 times, and could have stalled the table without end. Now the
    first proves it and every later one is refused, naming its writer and its record."""
    from spycraft.crypto.errors import IllegalAction
    from tests.conformance.games import Config, new_table

    local, agents = new_table(Config("resistance", 5, ()), 5)
    for _ in range(30):
        local.step(agents)
    first = local.records[0]
    pair = [sign_record(Record(first.record.table, 1, first.record.prev, 1, "x", {"i": i}),
                        local.seats[1].identity) for i in range(2)]
    fraud = local.seats[0].sign(local.state, "fraud", {"evidence": [p.raw for p in pair]})
    local.state = local.table.apply(local.state, fraud)
    assert [f.seat for f in local.state.forfeits] == [1]
    again = local.seats[2].sign(local.state, "fraud", {"evidence": [p.raw for p in pair]})
    with pytest.raises(IllegalAction, match="seat 1 has already been proven to cheat") as refused:
        local.table.apply(local.state, again)
    assert (refused.value.seat, refused.value.seq) == (2, local.state.seq + 1)


def test_a_seat_claimed_absent_can_still_be_proven_to_cheat_once() -> None:
    """Issue 18's ruling: in Spies & Lies (two seats), Red equivocated (two records for one
    place), then went quiet at its final reveal and was claimed absent by Blue: a claim, no
    winner. The pair reaches Blue only then, while Blue still owes its final reveal (a claim at
    the final reveal leaves the claimer its own; a claim in play ends the game at once). The
    claim must not shelter the lie: the fraud is taken and Blue wins; the same pair again is
    refused, naming its writer and its record."""
    from tests.conformance.games import Config
    from tests.conformance.games import new_table as new_game

    local, players = new_game(Config("spies-and-lies", 2, ()), 6)  # both seats open at the end
    while local.table.expect(local.state).kinds != ("final",):
        local.step(players)
    assert local.table.expect(local.state).seat == 0
    votes = {1: local.seats[1].absence_vote(local.state)}
    abandon = local.seats[1].sign_abandon(local.state, votes)
    local.state = local.table.apply(local.state, abandon)
    local.records.append(abandon)
    assert [(f.seat, f.reason) for f in local.state.forfeits] == [(0, ABANDONED)]
    assert local.table.expect(local.state) == Turn(1, ("final",))  # Blue still opens its cards
    mine = next(r for r in local.records if r.seat == 0)
    pair = [sign_record(Record(mine.record.table, mine.seq, mine.record.prev, 0, "x", {"i": i}),
                        local.seats[0].identity) for i in range(2)]
    fraud = local.seats[1].sign(local.state, "fraud", {"evidence": [p.raw for p in pair]})
    before, local.state = local.state, local.table.apply(local.state, fraud)
    local.records.append(fraud)
    assert [(f.seat, f.reason) for f in local.state.forfeits] == [(0, ABANDONED), (0, FRAUD)]
    told = Config("spies-and-lies", 2, ()).definition.story(before.game, fraud.record,
                                                             local.state.game)
    assert told is not None and told.text == "Blue proves that Red cheated: it forfeits"
    again = local.seats[1].sign(local.state, "fraud", {"evidence": [p.raw for p in pair]})
    with pytest.raises(IllegalAction, match="seat 0 has already been proven to cheat") as refused:
        local.table.apply(local.state, again)
    assert (refused.value.seat, refused.value.seq) == (1, local.state.seq + 1)
    result = local.run(players).result
    assert (result.winner, result.reason, result.forfeits) == ("Blue", FRAUD, (0,))
