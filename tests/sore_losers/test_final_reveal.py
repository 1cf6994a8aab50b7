"""Red team 17: a win that play fixed survives a loser who walks away in the final reveal.

A two-seat abandon is one party's word, so it decides nothing by itself (DESIGN "Fraud and
abandonment"). But a loser whose defeat is already proven by play must not turn it into
"abandoned, no winner" by never writing its final opening: that opening can only prove the
loser's own lies, and the winner's openings are checked whatever the loser does.
"""

from __future__ import annotations

import pytest

from spycraft.engines.audit import audit_transcript
from spycraft.engines.spynet import GAME
from tests.conformance.games import Config, declare_absent, new_table


def _stall_loser_in_final(config: Config, seed: int, loser: int):  # type: ignore[no-untyped-def]
    """Play honestly until the loser's turn in the final reveal, then declare it absent."""
    local, agents = new_table(config, seed)
    final = local.table.rules.final_reveal
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None, "the game ended before the loser's final reveal"
        if turn.seat == loser and set(turn.kinds) <= set(final):
            break
        local.step(agents)
    seat, seq = declare_absent(local)
    while local.step(agents) is not None:
        pass
    return local, seat, seq


def test_confusion_loser_who_never_writes_final_leaves_the_win_to_play() -> None:
    # Seed 0: White takes every Red spy (a win by play); White opens its final first.
    local, seat, seq = _stall_loser_in_final(Config("confusion", 2, ()), 0, loser=1)
    result = local.state.result
    assert result is not None
    assert (seat, result.winner, result.reason) == (1, "White", "no spies left")
    assert result.forfeits == (1,) and result.evidence == (seq,)
    assert "claimed" not in result.describe()
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result


def test_spies_and_lies_loser_who_never_opens_its_cards_leaves_the_flag_capture() -> None:
    # Seed 6: Red captures Blue's flag; both still hold hidden cards; Red opens first.
    local, seat, seq = _stall_loser_in_final(Config("spies-and-lies", 2, ()), 6, loser=1)
    result = local.state.result
    assert result is not None
    assert (seat, result.winner, result.reason) == (1, "Red", "flag captured")
    assert result.forfeits == (1,) and result.evidence == (seq,)
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result


def test_a_forfeit_during_play_still_leaves_no_natural_result() -> None:
    """The fix keeps the rule for a forfeit that stopped play: at two seats, only a claim."""
    local, agents = new_table(Config("spies-and-lies", 2, ()), 6)
    while local.table.expect(local.state).kinds != ("guess",):  # type: ignore[union-attr]
        local.step(agents)
    seat, _ = declare_absent(local)
    while local.step(agents) is not None:
        pass
    result = local.state.result
    assert result is not None and result.winner is None
    assert result.describe().startswith(f"abandoned, claimed by seat {1 - seat}")


def _claim_winner_in_final(config: Config, seed: int, winner: int):  # type: ignore[no-untyped-def]
    """The loser, having lost by play, claims the winner absent at its final opening at once
    (at two seats its own vote is the quorum: no timeout is checked by the engine)."""
    local, agents = new_table(config, seed)
    final = local.table.rules.final_reveal
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None
        if turn.seat == winner and set(turn.kinds) <= set(final):
            break
        local.step(agents)
    seat, seq = declare_absent(local)
    while local.step(agents) is not None:
        pass
    return local, seat, seq


def test_confusion_a_loser_cannot_void_the_win_by_claiming_the_winner_absent_in_final() -> None:
    # Seed 0: White (seat 0) wins by play and opens first: Red claims it absent right there.
    # Every fact of play was proven when it was made, so White's final can change nothing.
    local, seat, seq = _claim_winner_in_final(Config("confusion", 2, ()), 0, winner=0)
    result = local.state.result
    assert result is not None
    assert (seat, result.winner, result.reason) == (0, "White", "no spies left")
    assert result.forfeits == (0,) and result.evidence == (seq,)
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result


# --- SpyNet: the seats that revealed are scored; a forfeiter's closed missions are bounded -------
#
# Seeds found with the bots ("random"): in each, the stalling seat holds face-down missions that
# only its key share opens (docs/rulings.md, "What a forfeiter owes", SpyNet).


def _stall_in_final(config: Config, seed: int, seat: int, by: tuple[int, ...] = ()):  # type: ignore[no-untyped-def]
    """Play honestly until ``seat``'s turn in the final reveal, then declare it absent (voters
    ``by`` first); the others reveal and the game ends."""
    local, agents = new_table(config, seed)
    final = local.table.rules.final_reveal
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None, "the game ended before the seat's final reveal"
        if turn.seat == seat and set(turn.kinds) <= set(final):
            break
        local.step(agents)
    gone, seq = declare_absent(local, by=by)
    assert gone == seat
    while local.step(agents) is not None:
        pass
    return local, seq


def _checked(local, seq: int, seat: int):  # type: ignore[no-untyped-def]
    """The result, with the forfeit named and the audit agreeing with the live engine."""
    result = local.state.result
    assert result is not None
    assert result.forfeits == (seat,) and result.evidence == (seq,), result.describe()
    assert "rule violation" not in result.detail and result.reason != "fraud"
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result, report.describe()
    return result


@pytest.mark.parametrize(("players", "seed", "loser", "winner", "closed"),
                         [(2, 1, 0, "seat 1", "seat 0 18 to 21 (6 missions closed)"),
                          (3, 0, 2, "seat 0", "seat 2 0 to 6 (3 missions closed)"),
                          (4, 4, 1, "team 0+2", "team 1+3 8 to 10 (2 missions closed)")])
def test_spynet_loser_who_never_reveals_leaves_the_win_of_play(
        players: int, seed: int, loser: int, winner: str, closed: str) -> None:
    """Every card a seat that revealed holds or played face down opens with its own key share
    (every other token of it is public or sealed to it, proven), so the seats that revealed
    are scored; the loser's closed missions are bounded, and even at their best it lost.
    At four seats the loser is one partner of the losing team, the win its opponents'."""
    local, seq = _stall_in_final(Config("spynet", players, ()), seed, loser)
    result = _checked(local, seq, loser)
    assert (result.winner, result.reason) == (winner, "score"), result.describe()
    assert closed in result.detail
    shown = GAME.screen(local.state, loser, None).result
    assert shown is not None and shown.headline == "You lost"
    assert any(line.startswith("Score: ") and closed in line for line in shown.detail)
    assert result.detail.endswith(f"seat {loser} at record {seq}: deserted after seeing its cards")
    assert "claimed" not in result.describe()


def test_spynet_two_seat_winner_who_never_reveals_forfeits_its_win_as_a_claim() -> None:
    """Seat 1 won seed 1 on its face-down missions; it stalls at its reveal (or seat 0 says
    so: at two seats nobody can tell). Its closed missions could be worth the win or not, so
    seat 0's word cannot make it lose and seat 1 cannot win on cards it never opened."""
    local, seq = _stall_in_final(Config("spynet", 2, ()), 1, 1)
    result = _checked(local, seq, 1)
    assert (result.winner, result.reason) == (None, "abandoned")
    assert result.describe().startswith("abandoned, claimed by seat 0: no winner, no fraud")


def test_spynet_three_seat_winner_who_never_reveals_forfeits_its_win() -> None:
    """Seed 6 ends shared by seats 1 and 2; seat 1 stalls at its reveal and is declared absent
    by both others (a proof at three): its closed missions decide whether it won, so it loses
    (the one rule, ``table.settle``); of the two sides left, play ranked seat 2 (which shared
    the win) above seat 0, so seat 2 wins alone: the stall takes nothing from a seat that
    revealed (red team 25, B4)."""
    local, seq = _stall_in_final(Config("spynet", 3, ()), 6, 1)
    result = _checked(local, seq, 1)
    assert (result.winner, result.shared, result.reason) == ("seat 2", (), "deserted")
    assert "between the sides left: seat 0" in result.detail


@pytest.mark.parametrize(("by", "winner", "reason"),
                         [((2,), "team 1+3", "deserted"), ((1, 3), None, "abandoned")])
def test_spynet_team_partner_who_never_reveals_costs_its_team_the_win(
        by: tuple[int, ...], winner: str | None, reason: str) -> None:
    """Seed 4: team 0+2 won 11 to 10, on seat 0's face-down missions among others. Seat 0
    stalls at its reveal: declared absent with its partner's vote it is proven absent and its
    team loses; declared by its two opponents alone it is their claim, and nobody wins."""
    local, seq = _stall_in_final(Config("spynet", 4, ()), 4, 0, by=by)
    result = _checked(local, seq, 0)
    assert (result.winner, result.reason) == (winner, reason), result.describe()
    assert ("claimed by seats 1, 3" in result.detail) == (winner is None)


@pytest.mark.parametrize(("players", "seed", "winner", "side"),
                         [(2, 0, 0, "seat 0"), (3, 1, 0, "seat 0"), (4, 2, 0, "team 0+2")])
def test_spynet_winner_whose_win_its_closed_missions_cannot_change_keeps_it(
        players: int, seed: int, winner: int, side: str) -> None:
    """Every fact of play was proven when it was made, and the winner's closed missions at
    their worst still win: nothing left to open can change the result (``Over.fixed``), so
    the win stands, the forfeit named. At two seats this is also the loser claiming the winner
    absent at its reveal: its word alone cannot void a win that play fixed. At four seats the
    winner is a partner (seed 2: team 0+2 13 to 8 with four of seat 0's missions closed)."""
    local, seq = _stall_in_final(Config("spynet", players, ()), seed, winner)
    result = _checked(local, seq, winner)
    assert (result.winner, result.reason) == (side, "score"), result.describe()
    assert f"{side} " in result.detail and "missions closed" in result.detail
