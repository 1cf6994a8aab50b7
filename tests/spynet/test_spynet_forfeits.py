"""SpyNet's forfeits, face-down missions and §9.4 results, each as an attack or a rule.

* Issue 17, attack 1: with two honest seats, one declares the other absent; the absent seat's
  unopened seals used to become violations and the audit said FRAUD. A forfeiter owes nothing
  (``engines.table``), so the end is "abandoned, claimed by seat N"; with four seats the absent
  seat is reported absent, never as a cheater.
* A face-down mission is proven a mission of its branch when it is played
  (``protocol.apply_play_mission``); a lie there is refused at once.
* Attack 7 (§9.4): a win shared on funding names its winners, a loser's screen says it lost,
  and a win on the funding tie-break is recorded and shown as one.
* Red team 25, B4: a loser that withholds its key share at three seats, where its closed
  missions leave the score of all three open, loses alone; the two seats left are ranked by
  their exact points, as play ranked them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from spycraft.cli.outcome import verdict
from spycraft.crypto import proofs
from spycraft.crypto.errors import InvalidProof, MalformedRecord
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import LocalTable
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet.cards import BRANCHES, Kind, card
from spycraft.engines.spynet.rules import (
    TIE_BREAK,
    State,
    _audit,
    decided_result,
    mission_faces,
    mission_points,
    mission_statement,
    natural_result,
    open_without_forfeiters,
    score_bounds,
)
from spycraft.engines.spynet.scoring import Score, dominates, team_of
from spycraft.engines.table import (
    ABANDONED,
    CLAIMED,
    DESERTED,
    FRAUD,
    SHARED,
    Forfeit,
    Over,
    Result,
    TableState,
    Turn,
    settle,
)
from tests.conformance.games import Config, declare_absent, played
from tests.conformance.games import new_table as new_conformance_table
from tests.spynet.test_spynet_game import (
    accept,
    deploying,
    forge,
    game_of,
    new_table,
    play_until,
    refused,
)


def sealed_by(state: TableState[State], seat: int) -> list[int]:
    """The seqs of the tokens ``seat`` has sealed so far."""
    return [s.seq for s in state.game.ops.seals if s.sender == seat]


def seat_has_sealed(seat: int) -> Any:
    def found(state: TableState[State], turn: Turn) -> bool:
        return turn.seat == seat and turn.kinds != ("beacon",) and bool(sealed_by(state, seat))

    return found


# --- attack 1: an abandon is not a fraud ------------------------------------------------------


@pytest.mark.parametrize("absent", [0, 1])
def test_two_honest_seats_an_abandon_ends_claimed_never_as_fraud(absent: int) -> None:
    local, agents = new_table(2, 21)
    play_until(local, agents, seat_has_sealed(absent))
    seat, seq = declare_absent(local)
    assert seat == absent
    final = local.run(agents)
    result = final.result
    assert result is not None
    (forfeit,) = final.forfeits
    assert (forfeit.seat, forfeit.seq, forfeit.reason) == (absent, seq, DESERTED)
    assert (result.winner, result.reason, result.forfeits, result.evidence) == (
        None, ABANDONED, (absent,), (seq,)
    )
    claim = f"{CLAIMED} {1 - absent}"
    assert result.detail.startswith(claim) and "rule violation" not in result.detail
    assert result.unjudged == ()  # its seals were proven when sealed: nothing waits for it
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result, report.describe()
    assert report.describe().startswith("VALID spynet")
    assert f"result: abandoned, {claim}: no winner, no fraud" in report.describe()
    end = GAME.screen(final, 1 - absent, None).result
    assert end is not None and end.headline == "No winner"
    told = f"Seat {absent} walked away after seeing its cards; seat {1 - absent} claims the game"
    assert end.detail[-1].startswith(told), end.detail


def test_four_seats_an_absent_seat_declared_by_its_opponents_alone_is_their_claim() -> None:
    """Seat 1's opponents (seats 0 and 2) are a quorum at four, but their votes are one side's
    word: the game ends claimed, no winner, and still nobody is called a cheater."""
    local, agents = new_table(4, 22)
    play_until(local, agents, seat_has_sealed(1))
    seat, seq = declare_absent(local, by=(0, 2))
    final = local.run(agents)
    result = final.result
    assert result is not None
    assert (seat, result.forfeits, result.evidence) == (1, (1,), (seq,))
    assert (result.winner, result.reason) == (None, ABANDONED)
    assert result.detail.startswith(f"{CLAIMED}s 0, 2")
    assert "no fraud" in result.describe() and "rule violation" not in result.detail
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result, report.describe()


def test_four_seats_an_absent_seat_is_reported_absent_never_as_a_cheater() -> None:
    """With its partner's vote (seat 3) the absence is proven: seat 1's side loses, as a seat
    that walked away after seeing its cards, never as a cheater."""
    local, agents = new_table(4, 22)
    play_until(local, agents, seat_has_sealed(1))
    seat, seq = declare_absent(local, by=(3,))
    final = local.run(agents)
    result = final.result
    assert result is not None
    assert (seat, result.forfeits, result.evidence) == (1, (1,), (seq,))
    assert (result.winner, result.reason) == ("team 0+2", DESERTED)
    assert result.detail.startswith(f"seat 1 at record {seq}: deserted after seeing its cards")
    assert FRAUD not in result.describe() and "rule violation" not in result.detail
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result, report.describe()


def test_three_seats_an_absent_seat_loses_alone_and_the_others_are_not_judged_on_its_cards() -> (
    None
):
    local, agents = new_table(3, 23)
    play_until(local, agents, seat_has_sealed(2))
    seat, seq = declare_absent(local)
    final = local.run(agents)
    result = final.result
    assert result is not None
    assert (seat, result.evidence) == (2, (seq,))
    assert (result.winner, result.reason, result.forfeits) == (None, DESERTED, (2,))
    assert "rule violation" not in result.detail
    state: State = final.game
    assert state.faces == ()  # seat 2's key share stayed closed: not every card opens
    assert audit_transcript(local.transcript).valid


# --- face-down missions proven at once ----------------------------------------------------------


def deploying_with(local: LocalTable, wanted: Any) -> Any:
    def found(state: TableState[State], turn: Turn) -> bool:
        if not deploying(state, turn):
            return False
        seat = local.seats[turn.seat].game
        return any(wanted(state, turn.seat, p, f) for p, f in seat.hand_faces(state.game))

    return found


def dominated(state: TableState[State], seat: int) -> list[Any]:
    game = game_of(state)
    return [b for b in BRANCHES if dominates(game.board, seat, b) and b not in
            game.mission_branches]


def provable(state: TableState[State], seat: int, position: int) -> bool:
    return mission_statement(state.game, seat, position) is not None


def lie_at_hand(seed: int, wrong: Any) -> tuple[LocalTable, int, int, Any]:
    """A table where the seat to deploy dominates a branch and holds a card that
    ``wrong(face, branch)`` says is no mission of that branch; (table, seat, position,
    branch)."""
    for attempt in range(seed, seed + 30):
        local, agents = new_table(2, attempt)

        def liable(state: TableState[State], s: int, p: int, f: str,
                   local: LocalTable = local) -> bool:
            return provable(state, s, p) and any(wrong(f, b) for b in dominated(state, s))

        try:
            turn = play_until(local, agents, deploying_with(local, liable))
        except AssertionError:
            continue
        seat = local.seats[turn.seat].game
        position, branch = next(
            (p, b) for p, f in seat.hand_faces(local.state.game)
            for b in dominated(local.state, turn.seat)
            if provable(local.state, turn.seat, p) and wrong(f, b)
        )
        return local, turn.seat, position, branch
    pytest.fail("no table offered that lie")


def not_a_mission(face: str, branch: Any) -> bool:
    return card(face).kind is not Kind.MISSION


def mission_elsewhere(face: str, branch: Any) -> bool:
    return card(face).kind is Kind.MISSION and not card(face).belongs_to(branch)


def false_proof(local: LocalTable, seat: int, position: int, branch: Any) -> list[Any]:
    """The best a liar can do: a proof with the allowed faces as candidates, made with its own
    key share as if its card were the first of them."""
    state = local.state.game
    statement = mission_statement(state, seat, position)
    assert statement is not None
    own = local.seats[seat].game
    context = own.context_of(state, local.state.seq + 1, "play_mission")
    proof = proofs.prove_encrypts_one_of(
        statement[0], own.public, statement[1], mission_points(branch), 0, own.key, context,
        own.entropy("play_mission", local.state.seq + 1),
    )
    return proof.encode()


@pytest.mark.parametrize("wrong", [not_a_mission, mission_elsewhere], ids=["agent", "branch"])
def test_a_face_down_lie_is_refused_at_once(wrong: Any) -> None:
    local, liar, position, branch = lie_at_hand(30, wrong)
    body = {"card": position, "branch": str(branch)}
    proven = {**body, "proof": false_proof(local, liar, position, branch)}
    refused(local, forge(local, liar, "play_mission", proven), InvalidProof)
    error = refused(local, forge(local, liar, "play_mission", {**body, "proof": None}),
                    MalformedRecord)
    assert "carries the proof" in error.what
    refused(local, forge(local, liar, "play_mission", {**body, "proof": [b"junk", 7]}),
            MalformedRecord)


def test_every_honest_face_down_mission_carries_its_proof_sealed_tokens_and_all() -> None:
    local, agents = new_table(4, 24)
    local.run(agents)
    missions = [r for r in local.records if r.record.kind == "play_mission"]
    assert missions and all(r.record.body["proof"] is not None for r in missions)
    sealed = {(s.card, s.receiver) for s in local.state.game.ops.seals}
    assert any((r.record.body["card"], r.seat) in sealed for r in missions), (
        "no mission came to its holder with a sealed token"
    )
    assert audit_transcript(local.transcript).valid


def test_a_proof_copied_from_another_record_does_not_verify_here() -> None:
    local, agents = new_table(2, 24)
    honest = None
    while honest is None:
        before = len(local.records)
        local.step(agents)
        for signed in local.records[before:]:
            if signed.record.kind == "play_mission" and signed.record.body["proof"] is not None:
                honest = signed
    seat = honest.record.seat
    liable = deploying_with(local, lambda s, who, p, f: who == seat and provable(s, who, p)
                            and card(f).kind is Kind.MISSION and any(
                                card(f).belongs_to(b) for b in dominated(s, who)))
    play_until(local, agents, liable)
    own = local.seats[seat].game
    position, branch = next(
        (p, b) for p, f in own.hand_faces(local.state.game)
        for b in dominated(local.state, seat)
        if provable(local.state, seat, p) and card(f).kind is Kind.MISSION
        and card(f).belongs_to(b)
    )
    body = {"card": position, "branch": str(branch), "proof": honest.record.body["proof"]}
    refused(local, forge(local, seat, "play_mission", body), InvalidProof)


def test_under_open_secrets_a_mission_is_shown_and_a_proof_is_malformed() -> None:
    local, agents = new_table(2, 25, situation="S03")

    def a_mission(state: TableState[State], s: int, p: int, f: str) -> bool:
        return card(f).kind is Kind.MISSION and any(
            card(f).belongs_to(b) for b in dominated(state, s))

    turn = play_until(local, agents, deploying_with(local, a_mission))
    own = local.seats[turn.seat].game
    position, branch = next(
        (p, b) for p, f in own.hand_faces(local.state.game)
        for b in dominated(local.state, turn.seat)
        if card(f).kind is Kind.MISSION and card(f).belongs_to(b)
    )
    assert not provable(local.state, turn.seat, position)
    body = {"card": position, "branch": str(branch), "proof": [[], []]}
    error = refused(local, forge(local, turn.seat, "play_mission", body), MalformedRecord)
    assert "takes no proof" in error.what
    accept(local, forge(local, turn.seat, "play_mission", {**body, "proof": None}))


def test_the_faces_a_face_down_mission_may_have_are_the_missions_of_its_branch() -> None:
    for branch in BRANCHES:
        faces = mission_faces(branch)
        assert len(faces) == 6 + 3 + 2  # its own six, three two-branch missions, the purple two
        assert all(card(f).kind is Kind.MISSION and card(f).belongs_to(branch) for f in faces)


# --- attack 7: §9.4 at three seats ------------------------------------------------------------


def score(points: tuple[int, ...], funding: tuple[int, ...], winners: tuple[int, ...]) -> Score:
    sides = tuple((s,) for s in range(len(points)))
    return Score((), points, sides, points, funding, tuple((w,) for w in winners))


def test_the_result_of_section_9_4_names_the_winners_and_the_tie_break() -> None:
    alone = natural_result(score((7, 5, 3), (1, 4, 0), (0,)))
    assert (alone.winner, alone.reason, alone.shared) == ("seat 0", "score", ())
    tie = natural_result(score((7, 7, 3), (1, 4, 0), (1,)))
    assert (tie.winner, tie.reason) == ("seat 1", TIE_BREAK)
    assert tie.detail == "seat 0 7, seat 1 7, seat 2 3; tied on points, funding cards: " \
        "seat 0 1, seat 1 4"
    shared = natural_result(score((7, 3, 7), (2, 4, 2), (0, 2)))
    assert (shared.winner, shared.reason, shared.shared) == (None, SHARED, ("seat 0", "seat 2"))
    assert shared.winners == ("seat 0", "seat 2")
    assert shared.to_cbor()["winner"] == ["seat 0", "seat 2"]
    assert shared.describe().startswith("winners: seat 0 and seat 2 (shared)")


def test_a_three_seat_win_shared_on_funding_names_both_and_the_third_seat_lost() -> None:
    local, agents = new_table(3, 6)  # a game that ends tied on points and on funding cards
    final = local.run(agents)
    result = final.result
    assert result is not None and result.reason == SHARED, result.describe()
    assert (result.winner, result.shared) == (None, ("seat 1", "seat 2"))
    assert local.records[-1].record.body["winner"] == ("seat 1", "seat 2")
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result
    assert "result: winners: seat 1 and seat 2 (shared)" in report.describe()
    headlines = [GAME.screen(final, seat, None).result.headline for seat in range(3)]
    assert headlines == ["You lost", "You share the win", "You share the win"]
    assert GAME.screen(final, None, None).result.headline == "Seat 1 and seat 2 share the win"
    story = GAME.story(final.game, local.records[-1], final.game)
    assert story.text == "Seat 1 and seat 2 share the win: tied on points and on funding cards"
    assert "you lost" in verdict(GAME, final, 0) and "you share the win" in verdict(GAME, final, 1)


def test_a_win_on_the_funding_tie_break_is_recorded_and_shown_as_one() -> None:
    local, agents = new_table(4, 1)  # a game that ends tied on points, not on funding cards
    final = local.run(agents)
    result = final.result
    assert result is not None and result.reason == TIE_BREAK, result.describe()
    assert "tied on points, funding cards: " in result.detail
    assert local.records[-1].record.body["reason"] == TIE_BREAK
    report = audit_transcript(local.transcript)
    assert report.valid and f"({TIE_BREAK})" in report.describe()
    winners = {seat for seat in range(4)
               if GAME.screen(final, seat, None).result.headline == "You won"}
    assert winners == ({0, 2} if result.winner == "team 0+2" else {1, 3})
    story = GAME.story(final.game, local.records[-1], final.game)
    assert story.text.endswith("tied on points, with the most funding cards in play")


# --- the final reveal without a forfeiter's key share (red team 17) ---------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_without_one_key_share_every_card_its_seat_alone_knows_stays_closed_and_the_rest_opens(
    players: int,
) -> None:
    """On an honest game's last state, each seat's key share taken away in turn: every card
    that opens without it has its true face; every card a seat that revealed was shown opens
    (its other tokens are public or sealed to it); and every side's true points lie within the
    bounds, exact where nothing is closed, so a decided result is the true one."""
    config = Config("spynet", players, ())
    final: State = played(config).local.state.game
    assert final.final is not None and final.faces
    truth = natural_result(final.final)
    for gone in range(players):
        secrets = tuple(None if s == gone else x for s, x in enumerate(final.secrets))
        state = replace(final, secrets=secrets, faces=(), final=None, outcome=None)
        opened = open_without_forfeiters(state)
        assert all(final.faces[p] == face for p, face in opened.items())
        shown = {p for p, viewers in enumerate(final.ops.viewers) if set(viewers) - {gone}}
        assert shown <= set(opened)
        low, high, funding, shut = score_bounds(final.game, opened)
        assert funding == final.final.funding
        for i, points in enumerate(final.final.points):
            assert low[i] <= points <= high[i]
            assert (low[i] == high[i]) or shut[i], (gone, i)
        assert shut[final.final.teams.index(team_of(gone, players))] == sum(shut)
        decided = _audit(state).outcome
        if decided is not None:
            assert decided.winners == truth.winners, (gone, decided.describe())


def test_a_result_is_decided_only_when_every_closed_face_gives_it() -> None:
    sides = ((0,), (1,), (2,))
    alone = decided_result(sides, (9, 3, 4), (9, 8, 4), (0, 0, 0), (0, 2, 0))
    assert alone is not None and (alone.winner, alone.reason) == ("seat 0", "score")
    assert alone.detail == "seat 0 9, seat 1 3 to 8 (2 missions closed), seat 2 4"
    assert decided_result(sides, (9, 3, 4), (9, 9, 4), (1, 1, 0), (0, 2, 0)) is None
    funded = decided_result(sides, (9, 3, 4), (9, 9, 4), (2, 1, 0), (0, 2, 0))
    assert funded is not None and (funded.winner, funded.reason) == ("seat 0", TIE_BREAK)
    assert funded.detail.endswith("; may tie on points, funding cards: seat 0 2, seat 1 1")
    shared = decided_result(sides, (9, 9, 1), (9, 9, 5), (2, 2, 0), (0, 0, 1))
    assert shared is not None and shared.shared == ("seat 0", "seat 1")
    assert decided_result(sides, (9, 8, 1), (9, 10, 5), (2, 2, 0), (0, 1, 1)) is None
    closed_winner = decided_result(sides, (10, 8, 1), (14, 9, 5), (0, 5, 0), (1, 0, 1))
    assert closed_winner is not None and closed_winner.winner == "seat 0"


# --- red team 25, B4: a loser's stall at three seats leaves the two others as play ranked them ---


def test_a_loser_withholding_its_final_reveal_does_not_take_the_win_from_the_winner() -> None:
    """Seed 12 at three seats (random bots): play ends seat 0 8, seat 1 2, seat 2 7. Seat 2,
    losing, never reveals; seats 0 and 1 vote it absent (a proven abandon, not a claim). Its
    closed missions put it at "7 to 9 or so", so no result of all three is decided, and the
    forfeit rule runs: seat 2's side loses. Seats 0 and 1 revealed, their points are exact, and
    play decided between them: seat 0 wins, as it would have had seat 2 revealed (a colluding
    pair, seats 1 and 2, no longer turns seat 1's defeat into no winner)."""
    local, agents = new_conformance_table(Config("spynet", 3, ()), 12)
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None, "the game ended before seat 2's reveal"
        if turn.seat == 2 and "reveal" in turn.kinds:
            break
        local.step(agents)
    seat, seq = declare_absent(local, by=(0, 1))
    assert seat == 2
    final = local.run(agents)
    game: State = final.game
    assert game.final is None and game.outcome is None  # seat 2's missions stayed closed
    result = final.result
    assert result is not None
    assert (result.winner, result.reason, result.forfeits, result.evidence) == (
        "seat 0", DESERTED, (2,), (seq,))
    assert "between the sides left: seat 0 8, seat 1 2" in result.detail
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result


def test_play_ranks_the_sides_a_forfeit_leaves_only_when_their_rivals_lost_by_it() -> None:
    """``table.settle`` takes the game's ranking of the sides left (``Over.among``) only for
    exactly the sides the forfeit rule leaves: a fraud or a proven abandon; never for a claim,
    and never for another set of sides."""
    ranked = Result("seat 0", "score", detail="seat 0 8, seat 1 2")
    among = ((frozenset({"seat 0", "seat 1"}), ranked),)
    sides = ("seat 0", "seat 1", "seat 2")

    def side_of(seat: int) -> str:
        return sides[seat]

    def settled(*forfeits: Forfeit) -> Result:
        return settle(3, sides, side_of, forfeits, Over(None, among=among))

    absent = settled(Forfeit(2, 90, DESERTED, "ran out of time", reporter=0))
    assert (absent.winner, absent.reason, absent.forfeits) == ("seat 0", DESERTED, (2,))
    cheat = settled(Forfeit(2, 90, FRAUD, "signed two records for one place", reporter=1))
    assert (cheat.winner, cheat.reason) == ("seat 0", FRAUD)
    other = settled(Forfeit(1, 90, DESERTED, "ran out of time", reporter=0))
    assert (other.winner, other.forfeits) == (None, (1,))  # seats 0 and 2 were not ranked
    both = settled(Forfeit(2, 90, DESERTED, "ran out of time", reporter=0),
                   Forfeit(1, 91, DESERTED, "ran out of time", reporter=0))
    assert both.winner == "seat 0"  # one side left wins, ranked or not
    claim = settle(2, sides[:2], side_of, (Forfeit(1, 90, ABANDONED, "ran out of time",
                                                   reporter=0),),
                   Over(None, among=((frozenset({"seat 0"}), ranked),)))
    assert (claim.winner, claim.reason) == (None, ABANDONED)  # one seat's word ranks nothing
