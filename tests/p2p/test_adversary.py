"""The session protocol against an adversary that is not a list (``tests/p2p/adversary.py``).

Hypothesis draws the table (a Byzantine seat at 2 to 5 seats, a public team at four, or f seats
at 3f + 1; a seatless host and a stranger watching, or not), the network's delays, each honest
seat's thinking time, and the coalition's whole strategy (how faithfully it delivers what its
protocols emit, what it withholds and for how long, how often and with what it interferes, when
it stalls); every run must keep every guarantee of ``p2p.protocol`` (``adversary.check``). The
budget here is bounded and the same 400 examples every run (the suite's hypothesis profile is
derandomized: a suite that passes on one machine passes on every one); to search further, by
hand: ``.venv/bin/python tools/adversary.py --runs 10000``, or this test with ``--hypothesis-
profile=search``.

Each counterexample the adversary found is kept below as a named test with its seed.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.p2p.adversary import (
    MOVES,
    RECORD_KINDS,
    TIMEOUT,
    Strategy,
    Table,
    check,
    play,
)

weights = st.floats(0.0, 1.0)


@st.composite
def tables(draw: st.DrawFn) -> Table:
    form = draw(st.sampled_from(("one", "team", "f")))
    if form == "team":
        players, coalition, teams = 4, draw(st.sampled_from(((0, 2), (1, 3)))), True
    elif form == "f":
        players = draw(st.sampled_from((4, 7)))
        size = (players - 1) // 3
        coalition = tuple(sorted(draw(st.sets(st.integers(0, players - 1), min_size=size,
                                              max_size=size))))
        teams = False
    else:
        players, teams = draw(st.integers(2, 5)), False
        coalition = (draw(st.integers(0, players - 1)),)
    think = tuple(draw(st.sampled_from((0.0, 0.0, TIMEOUT / 2, TIMEOUT - 1.0)))
                  for _ in range(players))
    return Table(players, coalition, teams, draw(st.sampled_from((0.002, 0.05, 0.3))), think,
                 hosts=draw(st.sampled_from((0, 0, 1))),
                 spectators=draw(st.sampled_from((0, 0, 1))))


strategies = st.builds(
    Strategy,
    faithful=weights,
    withhold=st.floats(0.0, 0.5),
    linger=st.sampled_from((0.5, 2.0, TIMEOUT, 3 * TIMEOUT)),
    act=st.sampled_from((0.0, 0.05, 0.2, 0.6)),
    stall=st.sampled_from((0.0, 0.1, 0.3)),
    moves=st.tuples(*(weights for _ in MOVES)).filter(any),
    kinds=st.tuples(*(weights for _ in RECORD_KINDS)).filter(any),
    budget=st.sampled_from((10, 40, 120)),
)


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), table=tables(), strategy=strategies)
def test_no_seat_and_no_side_can_make_an_honest_seat_lose_or_the_honest_peers_fork(
    seed: int, table: Table, strategy: Strategy
) -> None:
    net, coalition = play(seed, table, strategy)
    check(net, coalition)


# --- what the adversary found (each a seed of ``adversary.play``: table, network, strategy) ---


def replayed(seed: int) -> None:
    net, coalition = play(seed)
    check(net, coalition)


def test_found_a_result_rolled_back_for_an_equivocation_at_its_place_and_never_written_again():
    """Seed 108 (two seats): the cheater signed a result and a false one for the last place; the
    honest peer rolled its result back to prove it, but no fraud can be written once the game is
    over. A result is now settled by itself: the place keeps it."""
    replayed(108)


def test_found_honest_peers_finished_then_rolled_back_by_what_came_after():
    """Seeds 118, 143, 232 and 336: the run stopped as soon as the honest peers all held a
    result, but frames still in flight made some roll back; the run now goes on until they are
    all still finished once the last frames are in (and the result itself stays, above)."""
    for seed in (118, 143, 232, 336):
        replayed(seed)


def test_found_lies_at_passed_places_kept_without_bound():
    """Seed 272: records the engine rejected were kept for every place they were told for; only
    the place at hand matters, so only its lie is kept."""
    replayed(272)


def test_found_a_withheld_record_voids_the_other_seats_claim_at_two_seats():
    """Seeds 2226, 2233, 2400, 2458 (two seats): the cheater withholds its record past its
    timeout, the honest seat claims it absent and writes the result, then the cheater sends the
    record with a claim of its own. Nobody can tell that from a link that was down: the order
    must be the one two honest seats would reach, so the game ends as the cheater's claim, no
    winner either way, and no side loses."""
    for seed in (2226, 2233, 2400, 2458):
        replayed(seed)


def test_found_a_switch_to_a_branch_that_proves_an_equivocation_on_the_way():
    """Seeds 4770, 4772: taking the branch the order put first, a record of it completed an
    equivocation and rolled back mid-way; the rest of the branch was then appended on the wrong
    base (an honest peer crashed on the next head). The switch now stops where the chain moved."""
    for seed in (4770, 4772):
        replayed(seed)


def test_found_a_banned_half_taken_back_by_a_conflict_stranding_an_honest_peer():
    """Seed 5859 (seven seats, two cheaters): one cheater signed two fraud records for one
    place; peers that had proven it took one half back when it won a later conflict by the
    order, while one that had banned it refused the chain and was voted absent at its next turn.
    A proven half now never takes a place (unless a quorum built on it), and evidence is acted
    on again whenever a peer holds a half once more."""
    replayed(5859)


def test_found_two_results_one_of_them_half_of_an_equivocation_known_to_one_peer_only():
    """Seed 6201: the cheater's result was half of an equivocation that one honest peer had seen
    and the others had not; each kept its own result. Every peer that learns the pair now bans
    it, so the same order decides at both."""
    replayed(6201)


def test_found_two_cheaters_equivocating_at_one_place():
    """Seeds 6550, 7210, 7942, 8168 (seven seats, two cheaters): both cheaters signed two
    records for one place; the second pair was never sent on (a place was reported once, not a
    seat's equivocation at it), one honest peer kept a banned half and, stuck on it, was voted
    absent at its next turn. Each seat's equivocation at a place is now reported on its own."""
    for seed in (6550, 7210, 7942, 8168):
        replayed(seed)


def test_found_a_quorum_built_on_half_of_an_equivocation_before_it_was_proven():
    """Seed 7067 (a public team at four): a cheater and an honest seat built on half of the
    other cheater's equivocation before it was proven, and honest peers that had proven it built
    on the fraud record: a quorum built on both records of the place, some honest peer had a
    result on each branch, and the order (the proven half never takes a place) rolled one back.
    The one case the guarantee leaves to the order: the peers still end alike."""
    replayed(7067)


def test_found_a_switch_that_started_an_honest_writers_clock_without_telling_it():
    """Hypothesis, seed 469 (four seats in teams, the two cheaters one team, seat 1 a person
    who thinks 4 of its 5 seconds): both cheaters equivocated; honest seat 3 took a fraud record
    the cheaters had withheld from seat 1 in place of the one both honest seats had built on,
    and its clock for seat 1 began, but a switch passed nothing on (seat 1's acks of the old
    branch looked like holding it), so seat 1 learned of the branch four seconds later from a
    proof, and seat 3's own vote made the cheaters' abandon of seat 1 a proof. A switch now
    passes the head on to the seat named next like any record accepted."""
    table = Table(players=4, coalition=(0, 2), teams=True, slowest=0.05,
                  think=(0.0, 4.0, 0.0, 0.0))
    strategy = Strategy(faithful=0.21875, withhold=0.375, linger=15.0, act=0.6, stall=0.0,
                        moves=(0.734375, 0.21875, 0.0, 0.21875, 0.375),
                        kinds=(0.625, 0.5, 0.25, 0.0, 1.0, 0.0, 0.0), budget=120)
    net, coalition = play(469, table, strategy)
    check(net, coalition)


def test_found_two_honest_peers_trading_their_records_for_ever_over_a_ban_only_one_knew():
    """Hypothesis, seed 469 again (the table above, another strategy): cheater seat 0 signed
    many records for one place, legs and frauds. Both honest seats had proven two legs;
    seat 1 alone then held one fraud record and was sent the other, so it banned that fraud
    record, but sent no pair on (the seat's equivocation at that place was reported already),
    while seat 3 took it by the order in place of seat 1's own fraud record. From then on each
    answered the other's record with its own, dozens of times a second, until the cheaters'
    votes made seat 1 abandoned. What decides is now sent whole: a peer that keeps its record
    against a half it banned sends the pair before its proof, so the other bans it too."""
    table = Table(players=4, coalition=(0, 2), teams=True, slowest=0.05,
                  think=(0.0, 4.0, 0.0, 0.0))
    strategy = Strategy(faithful=0.21058352558321475, withhold=0.3958422674373655, linger=15.0,
                        act=0.6, stall=0.0,
                        moves=(0.7264004420119855, 0.21875, 0.0, 0.21875, 0.37642754171030435),
                        kinds=(0.6757278939708254, 0.16125452933488085, 0.7026812063981956, 0.0,
                               1.0, 0.0, 0.0), budget=120)
    net, coalition = play(469, table, strategy)
    check(net, coalition)


def test_found_a_record_dropped_for_a_slot_a_left_branch_held():
    """Hypothesis, seed 1806225 (three seats, seat 2 a person who thinks 4 of its 5 seconds):
    the cheater sent seat 2 a result for record 1 (which the engine rejects) and the others its
    leg; the leg, first in a sync reply, proved the equivocation and rolled seat 2 back, and the
    rest of the reply, built on the leg, took the buffer's slot for record 2. Seat 1's own
    record 2, on its fraud record, then found the slot held and was dropped, and nothing asked
    for it again (its sender seemed to hold only the record before it): seat 2 learned of its
    turn 3.5 s late and was voted absent while it thought. A record not kept now marks its
    sender as ahead, so it is asked for again."""
    table = Table(players=3, coalition=(0,), teams=False, slowest=0.002, think=(0.0, 0.0, 4.0))
    strategy = Strategy(faithful=0.0, withhold=0.0, linger=0.5, act=0.6, stall=0.0,
                        moves=(1.0, 0.5, 0.5, 0.0, 1.0), kinds=(0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0),
                        budget=10)
    net, coalition = play(1806225, table, strategy)
    check(net, coalition)


def test_found_a_teams_claim_settled_by_its_own_result():
    """Seed 642 (four seats in teams, both cheaters one team, two honest persons thinking 4 of
    their 5 seconds): seat 0 sent its team's abandon of honest seat 3 with a result of its own
    on top, and a result counted as settling whatever it ended, so the claim beat seat 3's
    record though no seat outside the team built on it. A result now settles a claim only when
    its writer is outside the claiming party and not the accused (where such a seat exists)."""
    table = Table(players=4, coalition=(0, 2), teams=True, slowest=0.05,
                  think=(0.0, 4.0, 0.0, 4.0))
    strategy = Strategy(faithful=0.46875, withhold=0.2421875, linger=0.5, act=0.6, stall=0.0,
                        moves=(0.0, 0.0, 0.0, 1.0, 0.0), kinds=(0, 0, 0, 0, 0, 0, 1.0),
                        budget=10)
    net, coalition = play(642, table, strategy)
    check(net, coalition)


def test_found_a_decision_kept_from_before_a_ban_that_reverses_it():
    """Tools/adversary.py, seed 100971 (a public team at four, the cheaters seats 0 and 2): seat
    0 wrote a result late beside honest seat 1's, and one with the smaller bytes, so honest seat
    1 took it by the order; seat 0 then signed a fraud record for the same place, and every peer
    learned the pair. Seat 3 went back to seat 1's result, but seat 1 answered seat 3's offer
    with the decision it had cached for that very offer before the ban (keep ours), and the
    honest peers ended on two results. A peer that learns a ban now forgets what it decided."""
    replayed(100971)


def test_found_a_next_record_dropped_as_another_branch_and_never_sent_again():
    """Tools/adversary.py, seed 103893 (a public team at four, the cheaters seats 1 and 3, seat 2
    a person who thinks 3.9 of its 5 seconds): honest seat 0 sent seat 2 its record 4 and its
    record 5 at once; record 5 came first, while seat 2 still held the cheater's half of record
    4, so it was a record of another branch and dropped. Seat 2 then took seat 0's record 4 by
    the order, but nothing told it of record 5 for six seconds (its author had sent it), and
    seat 0's vote alone, with both cheaters out, made it abandoned while it thought. A record of
    another branch now counts as its sender's word that it holds it, so once the order takes us
    there, we ask."""
    replayed(103893)


def test_found_a_next_record_offered_at_a_place_we_held_otherwise_and_lost_by_a_rollback():
    """Tools/adversary.py, seed 104855 (a public team at four, the cheaters seats 1 and 3, seat 2
    a person who thinks 3.9 of its 5 seconds): honest seat 0 sent seat 2 its record 6 while seat
    2 still held a branch of the cheater's from record 5, so record 6 was a conflict on another
    prev and was answered, not kept; seat 2 then took seat 0's record 5 by the order, asked the
    cheaters for record 6 (they said they held it and sent nothing) and learned of it four
    seconds late. A verified record of a branch we do not hold is now kept (one per link) and
    taken as soon as the order takes us to that branch."""
    replayed(104855)


def test_found_a_switch_at_the_end_of_the_run_before_its_head_went_round():
    """Tools/adversary.py, seed 106581 (three seats, one cheater): the cheater wrote a second
    result late, with the smaller bytes; one honest peer switched to it just as the run's
    settling ended, so its new head never reached the other, which the check took for a fork.
    The run now settles until no honest peer rolled back meanwhile (the peers converge as soon
    as heads go round: the harness stopped too early, not the protocol)."""
    replayed(106581)


def test_found_a_claims_result_rolled_back_where_no_third_seat_was_left_to_judge():
    """Tools/adversary.py, seed 730573 (red25: four seats in public teams, the cheaters seats 1
    and 3): seat 1 was proven and forfeited; later seat 3 withheld its leg past its timeout,
    honest seats 0 and 2 (one party) voted, and seat 0 wrote the abandon, a claim, and the
    result on top. Seat 3 then sent the leg it withheld. The only seat outside the party that
    could have made the claim stand was seat 1, which had forfeited, so the claim could never
    stand, and the leg outranked it and the result on top: honest seat 0 rolled back a result
    it held (and an honest seat that had left after the result would have forked from one
    still lingering). Once no seat is left outside the party and the accused, the claim is all
    there is, as at two seats: its result settles it."""
    replayed(730573)


def test_found_a_teams_claim_and_its_result_outranked_by_the_accuseds_withheld_record():
    """tools/adversary.py, seed 832574 (stop 28; four seats in teams, the cheaters one team):
    the honest team claimed the accused absent and wrote the result on its claim; the accused's
    withheld record came back with its teammate's result on it and, as rule 3 says (a claim
    stands only once a seat outside its party builds on it), took the place: the claim and its
    result were rolled back. The check allowed that only at two seats."""
    replayed(832574)


def test_found_an_observer_waiting_for_ever_for_a_fraud_after_a_banned_result():
    """tools/adversary.py, seed 901950 (stop 28; four seats, a seatless host): the seat named
    to write the result signed it and another record for its place; the seats kept the result
    (it settles itself, rule 1), but the host had learned the pair first and refused the result
    as a banned half, waiting for a fraud record that nobody can write after a result."""
    replayed(901950)


def test_found_an_observer_that_could_not_prove_a_record_alone():
    """tools/adversary.py, seed 1000298 (stop 28; two seats, a seatless host): the cheater sent
    its result to the host only and the honest seat wrote its own after its wait; the host kept
    the cheater's (the order's first: smaller bytes) and had to prove it with that one record,
    which it sent as a ``record`` frame, the one frame an observer may not send: dropped, and
    the seat kept showing the host its own, twice a second, for good. An observer's proof of
    one record is a ``sync_reply`` too."""
    replayed(1000298)


def test_found_records_left_behind_the_head_when_a_released_one_was_refused():
    """tools/adversary.py, seeds 1205941 and 1206380 (stop 28, after the per-place state became
    one object and its invariants were asserted): a sync reply took a seat from record 0 to 4
    past its buffered records 3 and 4, and the next buffered one, the cheater's, was refused, so
    the release stopped before it dropped what the head had passed: records 3 and 4 stayed in
    the buffer, counted against their senders' room, behind the head."""
    replayed(1205941)
    replayed(1206380)
