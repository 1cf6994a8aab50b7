"""Red team 20: a secret opened in the final reveal after a *proven* abandon, then a rollback
into play by rule 2 of ``p2p.protocol`` (a vote dies when its voter builds on the other record).

SpyNet at four, teams 0+2 (honest) and 1+3 (a coalition). Seat 1 withholds its record R at a
place where its partner, seat 3, writes next. Everyone's clock runs out; seat 3 votes too, so
the abandon (written by seat 2, the closest voter) carries a vote outside seat 1's opponents:
a proof, not a claim, and nobody is held. The final reveal asks seats 0, 2, 3 in that order:
seats 0 and 2 open their key shares. Seat 3 does not; it sends R and its own next record on R
instead. Its vote is in the abandon, so by rule 2 the abandon loses to R (neither branch is
settled: only seat 0 built on the abandon apart from its author). Every honest peer rolls back
into play, and seats 1 and 3 hold all four key shares: every card of the deck is open to them.

Now (docs/rulings.md, "Nothing opens on an abandon in play until it is settled") every seat that
will reveal first writes a ``ready`` record that opens nothing, so the abandon is settled (a
quorum built on it) before the first key share goes out. Seat 3 either writes its ``ready``, and
then R comes too late to displace a settled abandon, or it does not, and is claimed absent by
seats 0 and 2, who then open nothing (a claim's party): R may still take play back, with every
key share closed.
"""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto.group import Scalar
from spycraft.engines import registry
from spycraft.engines.table import Turn
from tests.p2p.simnet import SimNet, adversary_of


@pytest.mark.parametrize("partner", ["ready", "refuses", "ready, then R at once"])
def test_no_honest_key_share_is_opened_on_a_branch_that_rolls_back_into_play(
        partner: str) -> None:
    """``ready, then R at once``: seat 3 builds on the abandon and on R before anyone opened
    anything; its vote must not die for that (``p2p.protocol._dead``), or R would take play
    back from an abandon its own vote proved."""
    partner_is_ready = partner != "refuses"
    spynet = registry.load("spynet")
    net = SimNet(4, seed=20, definition=spynet, options=spynet.genesis_options(4),
                 timeout=5.0, grace=1.0)
    plan: dict[str, Any] = {}
    opened: dict[int, bytes] = {}  # honest key shares seat 3 received, by seat

    def tap(sender: int, receiver: int, frame: dict[str, Any]) -> None:
        raws = [frame["record"]] if frame.get("t") == "record" else \
            list(frame["records"]) if frame.get("t") == "sync_reply" else []
        from spycraft.crypto.records import parse_record
        for raw in raws:
            signed = parse_record(raw)
            if signed.record.kind == "reveal" and signed.seat in (0, 2) and receiver == 3:
                opened[signed.seat] = signed.record.body["secret"]

    net.tap = tap

    def seat1(net: SimNet, peer: Any, state: Any) -> bool:
        if "R" in plan:
            return peer.protocol.head + 1 == plan["R"].seq  # keep R to itself
        turn = peer.protocol.wants_turn()
        if turn is None or turn.game.act != "play" or turn.seq < 20:
            return False
        record = peer.seat.build(turn, peer.agent)
        after = peer.protocol.table.apply(turn, record)
        nxt = peer.protocol.table.expect(after)
        if nxt is None or nxt.seat != 3 or after.game.act != "play":
            return False
        plan["R"], plan["before"] = record, turn
        return True

    def seat3(net: SimNet, peer: Any, state: Any) -> bool:
        if "R" not in plan:
            return False
        if "claimed" not in plan and any(f.seat == 3 for f in net.peers[0].protocol.state.forfeits):
            plan["claimed"] = net.now  # it stalled at its ``ready`` and was claimed absent
        late = "claimed" in plan and net.now > plan["claimed"] + 1.0
        early = partner == "ready, then R at once" and 3 in peer.protocol.state.game.ready
        turn = peer.protocol.wants_turn() or (plan["before"] if late or early else None)
        if turn is None:
            return False
        asked = peer.protocol.table.expect(turn)
        if asked is not None and asked.kinds == ("ready",) and partner_is_ready:
            return False  # it builds on the abandon like anyone (a record that opens nothing)
        if (sorted(opened) == [0, 2] or late or early) and "sent" not in plan:
            table = peer.protocol.table
            after_r = table.apply(plan["before"], plan["R"])
            mine = peer.seat.build(after_r, peer.agent)
            table.apply(after_r, mine)  # a valid record of seat 3 on R
            frame = {"t": "sync_reply", "from_seq": plan["R"].seq,
                     "records": [plan["R"].raw, mine.raw]}
            for other in (0, 2):
                net.send(3, other, frame, lossless=True)
            plan["sent"] = net.now
            return True
        return turn.game.act == "reveal"  # it never opens its own key share

    adversary_of(net, 1, seat1)
    adversary_of(net, 3, seat3)
    net.run(600.0, stop=lambda: "sent" in plan and net.now > plan["sent"] + 3.0)
    assert "sent" in plan, "the attack did not run"
    if not partner_is_ready:
        assert not opened, f"seats {sorted(opened)} opened their key shares on a claim in play"
        return
    if partner == "ready, then R at once":
        net.run(600.0, stop=lambda: all(net.peers[s].protocol.finished for s in (0, 2)))
        for seat in (0, 2):
            result = net.peers[seat].protocol.state.result
            assert result is not None and 1 in result.forfeits, (
                f"seat {seat} took R back after seat 3 built on the abandon its vote proved: "
                f"{result.describe() if result else 'no result'}")
    assert sorted(opened) == [0, 2], "seats 0 and 2 opened their key shares"
    for seat in (0, 2):
        state = net.peers[seat].protocol.state
        assert state.game.act != "play", (
            f"seat {seat} rolled back into play at record {state.seq} after its key share "
            f"went out: seats 1 and 3 open {read_by_coalition(net, opened)} cards neither of "
            f"them was ever shown (the other team's hands, the deck to come)")


def read_by_coalition(net: SimNet, opened: dict[int, bytes]) -> int:
    """How many cards neither public nor ever shown to seat 1 or 3 (the other team's hands,
    the deck still to come) seats 1 and 3 open with the two key shares they were sent and
    their own two; a card seat 0 or 2 was shown is checked against that seat's own view."""
    secrets = [Scalar.decode(opened[0]), net.peers[1].seat.game.key,
               Scalar.decode(opened[2]), net.peers[3].seat.game.key]
    ops = net.peers[0].protocol.state.game.ops
    read = 0
    for card, viewers in enumerate(ops.viewers):
        if ops.face(card) is not None or {1, 3} & set(viewers):
            continue
        face = ops.deck.open_with_secrets(card, secrets)
        for honest in set(viewers) & {0, 2}:
            assert face == net.peers[honest].seat.game.hand.peek(ops, card)
        read += 1
    return read


def test_a_voter_that_built_on_the_abandon_then_on_the_accuseds_record_does_not_void_it() -> None:
    """Seat 1 withholds R; seats 2 and 3 vote it absent (seat 2 writes the abandon: a proof);
    seat 3, seat 1's partner, writes its ``ready`` on the abandon, then a record on R. Before
    anyone opened anything, seat 0 holds the abandon and seat 3's ready, and is offered R with
    seat 3's record on it: neither branch is settled, and seat 3 built on both. Its vote stands
    (it chose the abandon first): seat 0 keeps the abandon, so the partner cannot take play
    back once the others have opened their secrets on it (``p2p.protocol._dead``)."""
    from spycraft.engines.game import PLAY
    from spycraft.p2p.protocol import PeerProtocol
    from tests.conformance.games import Config, declare_absent, new_table

    local, agents = new_table(Config("spynet", 4, ()), 0)
    while True:  # a place of seat 1 in play after which seat 3 writes next
        turn = local.table.expect(local.state)
        assert turn is not None, "no such place in this game"
        if local.state.game.act == PLAY and turn.seat == 1 and turn.kinds != ("beacon",):
            withheld = local.seats[1].build(local.state, agents[1])
            on_r = local.table.apply(local.state, withheld)
            nxt = local.table.expect(on_r)
            if nxt is not None and nxt.seat == 3 and on_r.game.act == PLAY:
                break
        local.step(agents)
    place = local.state.seq + 1
    partner_on_r = local.seats[3].build(on_r, agents[3])
    accused, _ = declare_absent(local, by=(2, 3))
    assert accused == 1 and local.table.expect(local.state) == Turn(3, ("ready",))
    local.step(agents)  # seat 3's ready on the abandon

    seat0 = PeerProtocol(table=local.table, genesis=local.genesis, seat=local.seats[0],
                         records=tuple(local.records))
    seat0.link_up(3, 3, 0.0)
    branch = [withheld.raw, partner_on_r.raw]
    seat0.receive(3, {"t": "sync_reply", "from_seq": place, "records": branch}, 1.0)
    kept = seat0.records[place - 1]
    assert kept.record.kind == "abandon", (
        f"seat 0 took seat 1's record back ({kept.record.kind}) after seat 3 built on the abandon")
