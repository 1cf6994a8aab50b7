"""The forfeit path against a coalition that does anything at random (the guarantee, not a case).

Nine breaks in four reviews (red teams 24-26 and 29) were each one sequence of stalls, votes,
abandons, frauds and records handed to some seats only; each fix closed its case. Here
hypothesis plays whole games of The Resistance (five seats), Shady Agents (four) and SpyNet
(three seats, and four with a team) on ``SimNet``, the real peer protocol and engines, with a
coalition that, at random moments, withholds its turn (any kind: a move, a ``ready``, a
``reveal``), releases the withheld record later to some seats only with its fellows' records
built on it, builds late on any branch its seats have seen, signs absence votes for whoever's
turn it is (a fellow's too) and writes an abandon with them and every honest vote it holds,
signs a second record at a place where it signed one and proves it (banning its own abandon or
ready) or has a fellow's fraud record carry it, sends all of these to some seats only, and keeps
some of its frames from some seats. A coalition is a side or any seats no larger than one
(never enough votes for a proof on its own), or at three seats two of them (a majority, which
may vote the third out, and nothing more). Whatever it does:

* no honest process fails (an honest peer's invariants are checked after every input);
* no honest seat signs two records for one place;
* no honest seat's ``reveal`` (a key share, or a final reveal) is rolled back where play then
  goes on: a secret opened on a branch that a later record displaced, and known to the
  coalition for the rest of the game, is the leak every one of those breaks was (a reveal
  rolled back for another forfeit of the final reveal, where the same seats reveal again and
  nothing is played, is not);
* no honest seat forfeits but on a claim (it never stalls, so no proof against it exists);
* the honest peers hold one transcript: every finished one the same, byte for byte, and one
  still waiting (a table a coalition leaves waiting, docs/rulings.md) a prefix of it.

With ``hidden_side`` forgotten in Shady Agents or The Resistance (red teams 25 and 26) it finds
an honest seat evicted on a proof in most runs. It is a net, not a proof: with the ready stage's
guards taken out (``not_ready``'s wait for every voter, ``_built``'s, ``_voter_lost``), or
without red team 29's fix, 40-60 runs found nothing, as those breaks need a stall, a release, a
ban and a late build in one narrow window (their own tests in tests/redteam* hold them).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.records import SignedRecord, parse_record
from spycraft.engines import absence, registry
from spycraft.engines.table import TableState
from tests.p2p.simnet import Peer, SimNet, adversary_of, never_signed_twice

TIMEOUT = 5.0
GRACE = 1.0
# what a table writes once play is over (a final reveal, and a forfeit's ready stage and reveals)
AFTER_PLAY = {"ready", "reveal", "abandon", "fraud", "result"}

# a game, its seat count, and the coalitions it is played against
TABLES: dict[str, tuple[str, int, list[tuple[int, ...]]]] = {
    "resistance-5": ("resistance", 5, [(0, 1), (1, 3), (2, 4), (0, 2, 4), (1, 2, 3)]),
    "shady-agents-4": ("shady-agents", 4, [(0, 1), (1, 2), (0, 3), (2, 3)]),
    # two of three seats are a majority: they may vote the third out (no side is hidden, and
    # a majority's word is a proof); nothing else of theirs may hurt it (red team 29)
    "spynet-3": ("spynet", 3, [(0, 1), (1, 2), (0, 2)]),
    "spynet-4": ("spynet", 4, [(0, 2), (1, 3)]),
}


@dataclass
class Coalition:
    """What the coalition's seats share: the records they hold back, and their habits."""

    seats: tuple[int, ...]
    rng: random.Random
    withhold: float  # the chance a member holds back its record at a place
    abandon: float  # the chance, at a step, a member writes a false abandon
    partial: float  # the chance a frame of a member's does not go to one honest seat
    # the records held back, by place: the state it was built on, the record, and when it may
    # go out (most after the others' turn timeout ran out, so that an abandon came first)
    held: dict[int, tuple[TableState[Any], SignedRecord, float]] = field(default_factory=dict)
    decided: dict[tuple[int, int], bool] = field(default_factory=dict)
    late: float = 0.01  # the chance, at a step, a member builds on a branch it has seen
    ban: float = 0.0  # the chance, at a step, a member proves its own (or a fellow's) double
    active: bool = True  # False: its seats play honestly from now on (the end goes round)
    # every record the coalition's seats were sent or signed, by the link it builds on
    seen: dict[bytes, dict[bytes, SignedRecord]] = field(default_factory=dict)
    released: int = 0
    abandons: int = 0
    late_built: int = 0

    def keep(self, signed: SignedRecord) -> None:
        self.seen.setdefault(signed.record.prev, {})[signed.raw] = signed


def _play(game: str, players: int, seats: tuple[int, ...], seed: int, rng: random.Random,
          withhold: float, abandon: float, partial: float,
          ban: float = 0.0) -> tuple[SimNet, Coalition]:
    definition = registry.load(game)
    net = SimNet(players, seed=seed, rng=rng, definition=definition,
                 options=definition.genesis_options(players), timeout=TIMEOUT, grace=GRACE,
                 delay=(0.001, 0.2))
    coalition = Coalition(seats, rng, withhold, abandon, partial, ban=ban)
    # each peer's rollbacks: how many records it kept, and the ones it dropped
    rolled: dict[int, list[tuple[int, list[bytes]]]] = {p.index: [] for p in net.peers}
    apply = net.apply

    def watched(peer: Peer, actions: list[Any]) -> None:
        before = list(peer.stored)
        apply(peer, actions)
        kept = 0
        while kept < min(len(before), len(peer.stored)) and before[kept] == peer.stored[kept]:
            kept += 1
        if kept < len(before):
            rolled[peer.index].append((kept, before[kept:]))

    net.apply = watched  # type: ignore[method-assign]
    net.rolled = rolled  # type: ignore[attr-defined]

    def intercept(peer: Peer, send: Any) -> bool:
        # True: kept from this honest seat (it may still get it from another)
        return send.link not in coalition.seats and coalition.rng.random() < coalition.partial

    def tap(sender: int, receiver: int, frame: dict[str, Any]) -> None:
        if receiver not in coalition.seats:
            return  # the coalition sees what its seats are sent, no more
        raws = [frame["record"]] if frame.get("t") == "record" else \
            list(frame["records"]) if frame.get("t") in ("sync_reply", "evidence") else []
        for raw in raws:
            coalition.keep(parse_record(raw))

    net.intercept = intercept
    net.tap = tap
    for seat in seats:
        adversary_of(net, seat, lambda net, peer, state: _act(net, peer, state, coalition))
    return net, coalition


def _act(net: SimNet, peer: Peer, state: TableState[Any], coalition: Coalition) -> bool:
    """One step of a coalition member: True when it writes nothing honest at this step."""
    if not coalition.active:
        return False
    rng = coalition.rng
    place = state.seq + 1
    if rng.random() < coalition.abandon:
        _false_abandon(net, peer, state, coalition)
    due = [place for place, (_, _, at) in coalition.held.items() if at <= net.now]
    if due:
        _release(net, peer, coalition, rng.choice(due))
    if rng.random() < coalition.late:
        _build_late(net, peer, coalition)
    if rng.random() < coalition.ban:
        _double(net, peer, state, coalition)
    turn = peer.protocol.wants_turn()
    if turn is None:
        return False
    key = (place, peer.index)
    if key not in coalition.decided:
        coalition.decided[key] = rng.random() < coalition.withhold
    if not coalition.decided[key]:
        return False
    if place not in coalition.held:
        record = peer.seat.build(turn, peer.agent)
        coalition.keep(record)
        at = net.now + rng.choice([0.5, 1.0, 1.2, 1.5, 2.5, 4.0]) * TIMEOUT
        coalition.held[place] = (turn, record, at)  # released later, its fellows' records on it
    return True


def _release(net: SimNet, peer: Peer, coalition: Coalition, place: int) -> None:
    """A held record, with the records of the coalition's seats that write next built on it,
    sent to some seats only."""
    rng = coalition.rng
    state, record, _ = coalition.held.pop(place)
    table = peer.protocol.table
    chain = [record]
    try:
        after = table.apply(state, record)
        while (turn := table.expect(after)) is not None and turn.seat in coalition.seats \
                and len(chain) < 4:
            member = net.peers[turn.seat]
            built = member.seat.build(after, member.agent)
            after = table.apply(after, built)
            coalition.keep(built)
            chain.append(built)
    except SpycraftError:
        chain = chain[:1]  # a chain the coalition cannot extend: the record alone
    targets = [p.index for p in net.peers if p.index not in coalition.seats and rng.random() < 0.6]
    for target in targets:
        net.send(peer.index, target, {"t": "sync_reply", "from_seq": record.seq,
                                      "records": [r.raw for r in chain]})
    coalition.released += 1


def _build_late(net: SimNet, peer: Peer, coalition: Coalition) -> None:
    """A walk from a recent place of the member's chain along any records the coalition has
    seen (another branch: a record it held back, the accused's record after an abandon, records
    honest seats built on it); where the walk ends at a member's turn, that member signs its
    record there (a voter that readied on an abandon building on the accused's branch too), and
    the branch goes to some seats only."""
    rng = coalition.rng
    protocol = peer.protocol
    table = protocol.table
    fork = rng.randrange(max(0, len(protocol.states) - 12), len(protocol.states))
    state = protocol.states[fork]
    chain: list[SignedRecord] = []
    for _ in range(rng.randrange(1, 12)):
        following = sorted(coalition.seen.get(state.link, {}).values(), key=lambda r: r.raw)
        if not following:
            break
        record = rng.choice(following)
        try:
            state = table.apply(state, record)
        except SpycraftError:
            break
        chain.append(record)
    turn = table.expect(state)
    if not chain or turn is None or turn.seat not in coalition.seats:
        return
    member = net.peers[turn.seat]
    try:
        built = member.seat.build(state, member.agent)
    except SpycraftError:
        return
    coalition.keep(built)
    chain.append(built)
    for other in net.peers:
        if other.index not in coalition.seats and rng.random() < 0.6:
            net.send(turn.seat, other.index, {"t": "sync_reply", "from_seq": chain[0].seq,
                                              "records": [r.raw for r in chain]})
    coalition.late_built += 1


def _double(net: SimNet, peer: Peer, state: TableState[Any], coalition: Coalition) -> None:
    """A member's record of a recent place, and a second one its seat signs there on purpose:
    sent as evidence to some seats (the member bans its own record: an abandon it wrote, a
    ready), or carried by a fraud record another member writes at the current place (a fellow
    sacrificed so that the fraud outranks an abandon, rule 4)."""
    rng = coalition.rng
    protocol = peer.protocol
    ours = [r for place in protocol.states[-12:]
            for r in coalition.seen.get(place.link, {}).values() if r.seat in coalition.seats]
    if not ours:
        return
    signed = rng.choice(sorted(ours, key=lambda r: r.raw))
    before = protocol.states[signed.seq - 1] if signed.seq - 1 < len(protocol.states) else None
    if before is None or before.link != signed.record.prev:
        return
    other = net.peers[signed.seat].seat.sign(
        before, "reveal" if signed.record.kind == "ready" else "ready", {})
    pair = [signed.raw, other.raw]
    if rng.random() < 0.5 or peer.index == signed.seat:
        for target in net.peers:
            if target.index not in coalition.seats and rng.random() < 0.6:
                net.send(signed.seat, target.index, {"t": "evidence", "records": pair})
        return
    fraud = peer.seat.sign(state, "fraud", {"evidence": tuple(pair)})
    coalition.keep(fraud)
    for target in net.peers:
        if target.index != peer.index and rng.random() < 0.6:
            net.send(peer.index, target.index, {"t": "record", "record": fraud.raw})


def _false_abandon(net: SimNet, peer: Peer, state: TableState[Any], coalition: Coalition) -> None:
    """An abandon of whoever's turn it is (a fellow member too: one that holds back its
    record, abandoned with an honest vote so that the votes are a proof), with every coalition
    vote and every honest vote the member holds for the place, sent to some seats only."""
    table = peer.protocol.table
    turn = table.expect(state)
    if turn is None or turn.kinds == ("result",) or turn.seat == peer.index:
        return
    if state is not peer.protocol.state:
        return
    votes = dict(peer.protocol.votes)
    for seat in coalition.seats:
        if seat != turn.seat:
            votes[seat] = net.peers[seat].seat.absence_vote(state)
    votes.pop(turn.seat, None)
    if len(votes) < absence.quorum(net.players) or peer.index not in votes:
        return
    record = peer.seat.sign_abandon(state, votes)
    coalition.keep(record)
    rng = coalition.rng
    for other in net.peers:
        if other.index != peer.index and rng.random() < 0.7:
            net.send(peer.index, other.index, {"t": "record", "record": record.raw})
    coalition.abandons += 1


def _check(net: SimNet, coalition: Coalition) -> None:
    honest = net.honest()
    never_signed_twice(net)
    rolled = net.rolled  # type: ignore[attr-defined]
    ended = honest[0].protocol.records
    for peer in honest:
        for kept, dropped in rolled[peer.index]:
            # where the dropped records and the final chain part (a rollback may take back
            # records it then takes again, the same bytes: those were never displaced)
            same = 0
            while same < len(dropped) and kept + same < len(ended) \
                    and dropped[same] == ended[kept + same].raw:
                same += 1
            kept, dropped = kept + same, dropped[same:]
            opened = [(s.seat, s.seq) for s in map(parse_record, dropped)
                      if s.record.kind == "reveal" and s.seat not in coalition.seats]
            played = sorted({r.record.kind for r in ended[kept:]} - AFTER_PLAY)
            assert not (opened and played), (
                f"peer {peer.index} rolled back the reveals (seat, record) {opened}, and play "
                f"went on from record {kept + 1} ({', '.join(played)}): a secret opened on a "
                "branch that was displaced")
    finished = [p for p in honest if p.protocol.finished]
    files = sorted((tuple(p.stored) for p in honest), key=len)
    longest = files[-1]
    for stored in files:
        assert stored == longest[:len(stored)], "honest peers forked"
    if finished:
        assert len({tuple(p.stored) for p in finished}) == 1, "finished honest peers differ"
    state = honest[0].protocol.state
    majority = len(coalition.seats) >= absence.quorum(net.players) and not any(
        honest[0].protocol.table.claiming_party(state, seat, coalition.seats)
        for seat in range(net.players) if seat not in coalition.seats)
    for forfeit in state.forfeits:
        if forfeit.seat not in coalition.seats and not majority:
            assert forfeit.claimed_by, (
                f"honest seat {forfeit.seat} forfeited on a proof ({forfeit.reason}, record "
                f"{forfeit.seq}) though it never stalled")


def _run(name: str, coalition_index: int, seed: int, rng: random.Random, withhold: float,
         abandon: float, partial: float, ban: float) -> None:
    game, players, coalitions = TABLES[name]
    seats = coalitions[coalition_index % len(coalitions)]
    net, coalition = _play(game, players, seats, seed, rng, withhold, abandon, partial, ban)
    net.run(400.0, stop=net.all_honest_finished)
    # The end goes round with the coalition quiet: honest peers that have exchanged heads hold
    # one transcript (a result written late by a member, which every peer still linked takes
    # by the order, is rule 1's and needs the heads to go round after it).
    net.intercept = None
    coalition.active = False
    net.settle(15.0)
    _check(net, coalition)


@pytest.mark.parametrize("name", sorted(TABLES))
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    coalition_index=st.integers(0, 4),
    seed=st.integers(1, 10**6),
    chance=st.integers(0, 2**32),
    withhold=st.sampled_from([0.0, 0.05, 0.2]),
    abandon=st.sampled_from([0.0, 0.02, 0.1]),
    partial=st.sampled_from([0.0, 0.2, 0.5]),
    ban=st.sampled_from([0.0, 0.0005, 0.003]),
)
def test_a_coalition_that_does_anything_gets_no_secret_opened_and_no_honest_seat_evicted(
    name: str, coalition_index: int, seed: int, chance: int, withhold: float, abandon: float,
    partial: float, ban: float,
) -> None:
    _run(name, coalition_index, seed, random.Random(chance), withhold, abandon, partial, ban)
