"""Red team 25: a ready stage that can no longer settle its forfeit, once the last seat left
readied, crashes every honest engine (``KeyShareRules.next`` asks ``still_to_reveal(state)[0]``
of an empty tuple: ``apply_ready`` never calls ``finish``).

The Resistance at five seats: a seat stalls in play and is declared absent by the three seats
that hold no part in it (proven: the ready stage starts); a second seat, not a voter of that
abandon, stalls at its ``ready`` (a spy, or just a laptop whose lid closed) and is declared
absent too. Three seats are left: they cannot be more than ``quorum(5) = 3``, nor every seat
but the accused, so nobody may open (``still_to_reveal`` is empty), but the act stays
``reveal`` and the table asks ``next`` for a turn: IndexError, in ``table.expect``, in every
honest peer (and again on resume from disk: the transcript holds the record that does it).
"""

from __future__ import annotations

from spycraft.crypto.records import parse_record
from spycraft.engines import registry
from spycraft.engines.game import PLAY
from tests.conformance.games import Config, declare_absent, new_table
from tests.p2p.simnet import SimNet, adversary_of, agreed, finish

N = 5


def test_engine_the_last_ready_of_a_stage_that_cannot_settle_is_not_a_crash():
    local, agents = new_table(Config("resistance", N, ()), seed=5)
    while local.state.game.act != PLAY:
        local.step(agents)
    for _ in range(3):
        local.step(agents)
    first, _ = declare_absent(local)
    game = local.state.game
    assert game.settling and game.confirm
    gone = [first]
    while True:
        turn = local.table.expect(local.state)  # IndexError here on the current code
        if turn is None:
            break
        if turn.kinds == ("ready",) and turn.seat not in local.state.game.confirm \
                and len(gone) < 2:
            second, _ = declare_absent(local, gone=gone)
            gone.append(second)
            continue
        local.step(agents)
    assert local.state.result is not None
    assert local.state.game.revealed == ()  # nobody opened: the forfeit decides


def test_simnet_a_second_stall_in_the_ready_stage_does_not_crash_the_honest_peers():
    definition = registry.load("resistance")
    net = SimNet(N, definition=definition, options=definition.genesis_options(N, {}), seed=3,
                 timeout=5.0, grace=1.0)
    # seat 3 stalls at its first turn in play: seat 4 (the voter closest after it) writes the
    # abandon and seats 1 and 2 ready first; seat 0, no voter, stalls at its ready, before the
    # writer's, and is declared absent; the writer's ready is then the last one
    first, second = 3, 0

    def stall_in_play(net, peer, state):
        return state.game.act == PLAY  # writes nothing once play began

    def stall_at_ready(net, peer, state):
        turn = peer.protocol.table.expect(state)
        return turn is not None and turn.seat == peer.index and turn.kinds == ("ready",)

    adversary_of(net, first, stall_in_play)
    adversary_of(net, second, stall_at_ready)
    # the second staller votes for nobody and writes no abandon (not a voter of the first)
    def mute(peer, send):
        frame = send.frame
        return peer.index == second and (frame["t"] == "absent" or (
            frame["t"] == "record" and parse_record(frame["record"]).record.kind == "abandon"))

    net.intercept = mute
    finish(net, limit=400.0)  # IndexError on the current code, in an honest peer
    transcript = agreed(net)
    kinds = [r.record.kind for r in transcript.records]
    assert kinds.count("abandon") == 2, kinds
    assert "reveal" not in kinds, kinds


def test_engine_spynet_four_an_honest_seat_lost_at_its_ready_is_not_a_crash():
    """SpyNet at four: seat 1 is declared absent in play by seats 2 and 3 (its partner's vote
    makes it a proof; seat 3 readies as its voter); seat 0, no voter, is asked next and its
    laptop dies (declared absent by 2 and 3, a proof: 2 is its partner); seat 2's ready is then
    the last, and two seats cannot settle the abandon: IndexError in every engine."""
    local, agents = new_table(Config("spynet", 4, ()), seed=5)
    while not (local.state.game.act == PLAY and local.table.expect(local.state).seat == 1):
        local.step(agents)
    declare_absent(local, by=(2, 3))
    gone = [1]
    while True:
        turn = local.table.expect(local.state)  # IndexError here on the current code
        if turn is None:
            break
        if turn.seat == 0 and turn.kinds == ("ready",):
            declare_absent(local, gone=gone)
            gone.append(0)
            continue
        local.step(agents)
    assert local.state.result is not None
    assert local.state.game.revealed == ()
