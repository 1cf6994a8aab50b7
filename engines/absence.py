"""Absence: when a seat may be declared gone, and the signed votes that prove enough seats saw it.

Theory of operation
-------------------
A stall cannot be proven: one seat's word that another went quiet is only a claim. So an
``abandon`` record is valid only with a *quorum of absence votes*: each vote is one seat's
Ed25519 signature, by its identity key, over (table, seq, prev, accused), saying "I have waited
out my own timeout at this very place in the chain and hold no record from the accused".
The quorum is a majority of the seats other than the accused (``quorum(n)``). Where the votes
come from one party only, they are a *claim*, not a proof (``is_claim``): with two players the one
other seat is the quorum; where teams are public (SpyNet at four) the accused's opponents are
one party whatever their number (the game names them: ``GameRules.public_opponents``); and where
a hidden side can be a quorum on its own (Shady Agents: each team is half the table, the longer
one at an odd count, and a majority of the others is no more; The Resistance: its members),
votes of no more seats than that side could all be its members' (the game names its size:
``GameRules.hidden_side``). A claim is
a valid abandon, but it makes no side lose: the result says "abandoned, claimed by seat N" (or
"seats N, M"), never a proven desertion.

Votes are not records: they are signed under their own domain (``VOTE_DOMAIN``), so a vote can
never be mistaken for a record of the voter at that seq (which would look like equivocation).

The abandon body is ``{seat: accused, votes: [[voter, sig], ...]}`` with voters distinct, in
ascending order, none of them the accused, the writer among them, at least ``quorum(n)`` of them,
and every signature valid for this table, this seq and this ``prev``. A vote signed for another
place in the chain proves nothing here.

This module is sans-IO; the session protocol decides *when* to vote (``p2p.protocol``).
"""

from __future__ import annotations

from collections.abc import Iterable

from spycraft.crypto.encoding import encode
from spycraft.crypto.errors import IllegalAction, MalformedRecord
from spycraft.crypto.identity import Identity, verify_signature
from spycraft.crypto.records import Genesis, Record
from spycraft.engines.schema import Body

VOTE_DOMAIN = b"spycraft/absent/v1\x00"
SIGNATURE_SIZE = 64


def quorum(seats: int) -> int:
    """Votes needed to declare one seat absent: a majority of the *other* seats."""
    return (seats - 1) // 2 + 1


def is_claim(seats: int, voters: Iterable[int], opponents: Iterable[int], hidden: int = 0) -> bool:
    """True when these votes may be one party's word against the accused, not a proof: at two
    seats always; elsewhere when every voter is one of the accused's public ``opponents``, or
    when there are no more voters than a ``hidden`` side against it may have members."""
    voting = set(voters)
    return seats == 2 or voting <= set(opponents) or len(voting) <= hidden


def claiming_party(
    seats: int, voters: Iterable[int], opponents: Iterable[int], hidden: int = 0
) -> frozenset[int] | None:
    """The seats a claim speaks for (its voters and the accused's public opponents), or None
    when the votes are a proof."""
    voting, against = frozenset(voters), frozenset(opponents)
    return voting | against if is_claim(seats, voting, against, hidden) else None


def vote_message(table: bytes, seq: int, prev: bytes, accused: int, voter: int) -> bytes:
    return VOTE_DOMAIN + encode(
        {"table": table, "seq": seq, "prev": prev, "accused": accused, "voter": voter}
    )


def sign_vote(
    identity: Identity, table: bytes, seq: int, prev: bytes, accused: int, voter: int
) -> bytes:
    return identity.sign(vote_message(table, seq, prev, accused, voter))


def vote_valid(
    genesis: Genesis, seq: int, prev: bytes, accused: int, voter: int, signature: bytes
) -> bool:
    """True when ``signature`` is ``voter``'s vote that ``accused`` is absent at (seq, prev)."""
    seats = genesis.seats
    if not (0 <= voter < len(seats) and 0 <= accused < len(seats)) or voter == accused:
        return False
    message = vote_message(genesis.table, seq, prev, accused, voter)
    return verify_signature(seats[voter].identity, signature, message)


def abandon_body(accused: int, votes: dict[int, bytes]) -> Body:
    """The body of an abandon record from the votes held (all of them, in voter order)."""
    return {"seat": accused, "votes": [[voter, votes[voter]] for voter in sorted(votes)]}


def voters(record: Record) -> frozenset[int]:
    """The seats whose votes an abandon carries (none for any other record); read from a record
    the table already checked (``check_abandon``)."""
    if record.kind != "abandon":
        return frozenset()
    return frozenset(vote[0] for vote in record.body["votes"])


def check_abandon(genesis: Genesis, expected: int, record: Record) -> tuple[int, ...]:
    """The voters of a valid abandon of seat ``expected``; raise naming the writer otherwise."""
    seat, seq = record.seat, record.seq
    body = record.body
    if not isinstance(body, dict) or set(body) != {"seat", "votes"}:
        raise MalformedRecord(seat, seq, "abandon body must be {seat, votes}")
    accused, votes = body["seat"], body["votes"]
    if not _is_seat(accused, genesis) or accused != expected:
        raise MalformedRecord(seat, seq, f"abandon must name the seat expected next ({expected})")
    if seat == accused:
        raise IllegalAction(seat, seq, "a seat cannot declare itself absent")
    if not isinstance(votes, tuple) or not all(_is_vote(v, genesis) for v in votes):
        raise MalformedRecord(seat, seq, "abandon votes must be [voter, 64-byte signature] pairs")
    voters = tuple(v[0] for v in votes)
    if list(voters) != sorted(set(voters)):
        raise MalformedRecord(seat, seq, "abandon votes must be by distinct seats in seat order")
    needed = quorum(len(genesis.seats))
    if len(voters) < needed:
        raise IllegalAction(
            seat, seq, f"abandon needs the votes of {needed} other seats, it carries {len(voters)}"
        )
    if seat not in voters:
        raise IllegalAction(seat, seq, "the writer of an abandon must have voted itself")
    for voter, signature in votes:
        if not vote_valid(genesis, seq, record.prev, accused, voter, signature):
            raise IllegalAction(
                seat, seq, f"seat {voter}'s absence vote is not valid for this place in the chain"
            )
    return voters


def _is_seat(value: object, genesis: Genesis) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 0 <= value < len(genesis.seats)
    )


def _is_vote(vote: object, genesis: Genesis) -> bool:
    return (
        isinstance(vote, tuple)
        and len(vote) == 2
        and _is_seat(vote[0], genesis)
        and isinstance(vote[1], bytes)
        and len(vote[1]) == SIGNATURE_SIZE
    )
