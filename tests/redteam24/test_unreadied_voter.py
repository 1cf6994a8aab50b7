"""Red team 24: a voter the ready stage never asked kills the abandon after the key shares opened.

``KeyShareRules.not_ready`` asks the abandon's voters but its writer (``confirm``) for a ``ready``
first, but ``_built`` ends the ready stage as soon as more than ``quorum(n)`` seats readied,
whoever they are. At ten seats quorum is 5: an abandon carrying eight votes has seven voters to
confirm, and after six of them the first key share opens while the seventh has not built on the
abandon. Its vote can still die (rule 2 of ``p2p.protocol``, ``_dead``): it builds on the
accused's record, whose branch the party settles with the records its own members add to one
record an honest seat signed there before it switched (legitimately: the accused's record came
first to it, and the abandon won by rank once it arrived). Both records settled, the abandon's
vote dead: the accused's record takes the place back, and play goes on with the key shares of
the honest seats that opened theirs public.

Shady Agents at ten seats (seed 466: the party is the Corrupt team): the party is 4 (the
accused, it withholds its beacon), 5 (the abandon's writer), 7, 8, 9 (9: the voter never asked
for its ready); the honest seats are 0, 1, 2, 3 and 6 (6 votes too, but the writer leaves its
vote out, and 6 gets the accused's beacon and the writer's before the abandon: it signs its own
beacon on them).
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import parse_record
from spycraft.engines.registry import load
from tests.p2p.simnet import Peer, SimNet
from tests.redteam24.opened import reveals_tap

GAME = load("shady-agents")
N = 10
ACCUSED, WRITER, OUTSIDER = 4, 5, 6
PARTY = (4, 5, 7, 8, 9)
HONEST = (0, 1, 2, 3, 6)
VOTERS = (0, 1, 2, 3)  # the honest votes the writer carries (6's is left out)
SEED = 466  # the deal makes the party {4, 5, 7, 8, 9} the Corrupt team, the others Law-abiding


def _expects(state: Any, table: Any, seat: int, kind: str) -> bool:
    turn = table.expect(state)
    return turn is not None and turn.seat == seat and turn.kinds == (kind,)


def test_a_voter_never_asked_for_its_ready_takes_play_back_after_the_key_shares_opened():
    net = SimNet(N, definition=GAME, options=GAME.options(N), seed=SEED, timeout=5.0, grace=1.0)
    table = GAME.table()
    dark = False
    captured: dict[int, bytes] = {}

    def at_target(state: Any) -> bool:
        return _expects(state, table, ACCUSED, "beacon") and state.game.act == "play"

    def step(net: SimNet, peer: Peer) -> None:
        if dark:
            return
        state = peer.protocol.wants_turn()
        if state is None or (peer.index == ACCUSED and at_target(state)):
            return
        net.apply(peer, peer.protocol.submit(peer.seat.build(state, peer.agent), net.now))

    for seat in PARTY:
        net.peers[seat].honest = False
    net.adversary = step
    net.intercept = lambda peer, send: dark  # the party's own protocols say nothing once dark

    def on_frame(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        if not dark or receiver.index not in PARTY:
            return False
        if frame["t"] == "absent" and frame["seat"] == ACCUSED:
            captured[frame["voter"]] = frame["sig"]
        return True  # the party reads what it likes, and answers as below

    net.on_frame = on_frame
    opened, net.tap = reveals_tap(HONEST)  # the honest seats whose key share went out

    # Honest play up to the accused's beacon in play.
    net.run(300.0, stop=lambda: all(at_target(p.protocol.state) for p in net.peers))
    assert all(at_target(p.protocol.state) for p in net.peers)
    teams = [net.peers[i].seat.view(net.peers[i].protocol.state).knowledge.team for i in range(N)]
    assert {teams[i] for i in PARTY} == {"C"} and {teams[i] for i in HONEST} == {"L"}, teams
    dark = True
    before = net.peers[0].protocol.state
    p0 = before.seq + 1

    # The honest seats time out and vote; the party keeps the honest votes of 0..3.
    net.run(net.now + 30.0, stop=lambda: all(v in captured for v in VOTERS))
    assert all(v in captured for v in VOTERS), captured
    votes = {v: captured[v] for v in VOTERS}
    for seat in (5, 7, 8, 9):
        votes[seat] = net.peers[seat].seat.absence_vote(before)
    abandon = net.peers[WRITER].seat.sign_abandon(before, votes)
    accused = net.peers[ACCUSED].seat.build(before, net.peers[ACCUSED].agent)
    s1 = table.apply(before, accused)
    b5 = net.peers[WRITER].seat.build(s1, net.peers[WRITER].agent)
    s2 = table.apply(s1, b5)
    for h in VOTERS:
        net.send(WRITER, h, {"t": "record", "record": abandon.raw}, after=0.001)
    net.send(ACCUSED, OUTSIDER, {"t": "record", "record": accused.raw}, after=0.001)
    net.send(WRITER, OUTSIDER, {"t": "record", "record": b5.raw}, after=0.002)

    # Seat 6 signs its beacon on the accused's (honestly: it came first), then learns of the
    # abandon, which wins by rank (no voter built on the accused's record yet), and switches.
    def b6_signed() -> bytes | None:
        raws = net.peers[OUTSIDER].signed.get((p0 + 2, b5.link))
        return next(iter(raws)) if raws else None

    net.run(net.now + 5.0, stop=lambda: b6_signed() is not None)
    raw6 = b6_signed()
    assert raw6 is not None, "seat 6 never built on the accused's beacon"
    b6 = parse_record(raw6)

    # The ready stage: 0..3 ready on their own, the party's 7 and 8 too; 9 is never asked.
    for seat in (7, 8):
        net.run(net.now + 30.0, stop=lambda s=seat: all(
            _expects(net.peers[h].protocol.state, table, s, "ready") for h in HONEST))
        state = net.peers[0].protocol.state
        assert _expects(state, table, seat, "ready"), (seat, table.expect(state))
        ready = net.peers[seat].seat.build(state, net.peers[seat].agent)
        for h in HONEST:
            net.send(seat, h, {"t": "record", "record": ready.raw}, after=0.001)
    # Seat 9 never writes its ready. As the code stands the key shares open in seat order, 0, 1,
    # 2, 3 (then 5, which the party never writes): six voters readied, more than quorum(10).
    net.run(net.now + 30.0)
    chain = net.peers[0].protocol.records
    assert chain[p0 - 1].raw == abandon.raw

    # The party settles the accused's beacon: 5, 6, 7, 8, 9 built on it (quorum(10) is 5).
    s3 = table.apply(s2, b6)
    branch = [accused, b5, b6]
    for seat in (7, 8, 9):
        signed = net.peers[seat].seat.build(s3, net.peers[seat].agent)
        s3 = table.apply(s3, signed)
        branch.append(signed)
    for h in HONEST:
        net.send(ACCUSED, h, {"t": "sync_reply", "from_seq": p0,
                              "records": [r.raw for r in branch]}, after=0.001)
    net.run(net.now + 5.0)

    for h in HONEST:
        protocol = net.peers[h].protocol
        if protocol.records[p0 - 1].raw == abandon.raw:
            continue  # the abandon stands
        # The accused's record took the place back (the vote of 9, which never built on the
        # abandon, died): that may be, but only if no key share opened on the abandon.
        assert not opened, (
            f"seat {h} took the accused's record back after seats {sorted(opened)} opened "
            f"their key shares on the abandon: play goes on at record {protocol.head}, "
            f"{table.expect(protocol.state)}")
