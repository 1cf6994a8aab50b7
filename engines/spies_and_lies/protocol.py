"""Stratego: Spies & Lies on the table: records, commitments and draws around ``model``.

(The record kinds are declared once, in the package's ``MOVES``: schema, apply, build.)

Theory of operation
-------------------
Seat 0 plays Red and seat 1 plays Blue. The game state is ``model.Board``, which holds only
public facts; ``next`` names who writes next from its phase and stage, ``apply`` checks one
record (shape, then openings, then rules) and hands the event to ``model``. Hidden choices are
hash commitments (crypto.commit): each deployment is four commitments, one per Mission card, so
each card is opened alone at its step; each token layout is one commitment, opened by both seats
once both are committed (the token phase is simultaneous, rules §4.2). Public randomness comes
from the beacon: ``on_draw`` turns a round seed into the ``uniform()`` values of that moment with
``uniform_from(seed, 0, k0)``, ``uniform_from(seed, 1, k1)``, ... in the rules' order.

Records of a round, in order (rules §8): ``deploy`` seat 0, ``deploy`` seat 1, beacon (Intel),
``layout`` seat 0, ``layout`` seat 1, ``tokens`` seat 0, ``tokens`` seat 1, then per step:
``deceive`` (only when the defender has a DT), ``guess``, ``reveal``, then ``captain`` and
``marshal`` when the activated card asks its owner; after step 8 of day 1 or 2, a beacon for the
exhaustion. The game starts with one beacon for the setup draws. When play stops with cards
still hidden (a flag capture or a forfeit), every seat that has not forfeited writes ``final``
before the result.

=========  ==========  ===========================================================  ===========
kind       writer      body                                                         when
=========  ==========  ===========================================================  ===========
deploy     each seat   ``{missions: [d1, d2, d3, d4]}``: 32-byte commitment digests   Deployment
                       to ``[seat, day, mission 1..4, rank]`` (purpose
                       ``spies-and-lies/mission``)
layout     each seat   ``{digest}``: commitment to ``[seat, day, [t1..t4]]``           Intel
                       (purpose ``spies-and-lies/tokens``)
tokens     each seat   ``{tokens: [t1..t4] (bools), nonce}``: opens the layout         Intel
deceive    defender    ``{place: bool}``: D3                                           each step
guess      guesser     ``{rank: 1..10}``: D4                                           each step
reveal     defender    ``{rank, nonce}``: opens the target's commitment                each step
captain    defender    ``{copy: int}``: D5, 0 = "6 IP", e = copy exhausted e           when asked
marshal    defender    ``{split: bool}``: D6, false = "10 IP", true = "5 and -5"       when asked
final      each seat   ``{cards: [[rank, nonce], ...]}``: the still-hidden cards,       game over
                       in mission order
=========  ==========  ===========================================================  ===========

Checks and errors: a body of the wrong shape is ``MalformedRecord``; an opening that does not
open its commitment is ``BadOpening``; a choice the rules forbid (a guess outside 1..10, a copy
that is not offered) is ``IllegalAction``; a valid opening that proves the hidden deployment or a
forced token illegal (a rank not in the hand, a repeated rank, the rank order broken, a false
non-Sergeant token) is ``RuleViolation``, raised at the first reveal after which no legal
deployment agrees with what the seat has shown. The table turns any of these into a forfeit
through its ``fraud`` record. A D5 whose only option is "6 IP" is not a decision: the engine
takes 6 IP and no ``captain`` record is written. A token layout never opened (play stopped first)
is not checked: no token was ever shown, so nobody was misled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from spycraft.crypto.commit import NONCE_BYTES, Commitment
from spycraft.crypto.errors import BadOpening, MalformedRecord, OutOfTurn
from spycraft.crypto.hashing import uniform_from
from spycraft.crypto.records import Genesis, Record
from spycraft.engines.game import Move, Rules
from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.model import SIDES, Board
from spycraft.engines.table import Draw, GameNeed, Over, Result, Turn

MISSION_PURPOSE = "spies-and-lies/mission"
LAYOUT_PURPOSE = "spies-and-lies/tokens"

def mission_commitment(seat: int, day: int, mission: int, rank: int, nonce: bytes) -> Commitment:
    return Commitment.to(MISSION_PURPOSE, [seat, day, mission, rank], nonce)


def layout_commitment(seat: int, day: int, tokens: Sequence[bool], nonce: bytes) -> Commitment:
    return Commitment.to(LAYOUT_PURPOSE, [seat, day, list(tokens)], nonce)


def opens_mission(board: Board, seat: int, index: int, rank: int, nonce: bytes) -> bool:
    digest = board.cards[seat][index].digest
    return Commitment(digest, MISSION_PURPOSE).opens_to([seat, board.day, index + 1, rank], nonce)


class SpiesAndLies(Rules[Board]):
    """The ``GameRules`` of Stratego: Spies & Lies (no options, two seats)."""

    name = "spies-and-lies"
    seat_counts: tuple[int, ...] = (2,)
    sides: tuple[str, ...] = SIDES

    final_reveal = ("final",)

    def seats_of(self, state: Board) -> int:
        return 2

    def initial(self, genesis: Genesis) -> Board:
        return Board()

    def __init__(self, table: Mapping[str, Move[Board]]) -> None:
        super().__init__(table)
        # The last board ``next`` answered for, and its answer: the table asks before it applies
        # a record and ``before`` asks again for the same board. Boards are immutable and the
        # memo holds the board, so ``is`` cannot match another; one tuple, so threads that share
        # these rules read a matching pair.
        self._last_need: tuple[Board | None, GameNeed | None] = (None, None)

    def next(self, state: Board) -> GameNeed:
        board, need = self._last_need
        if board is state and need is not None:
            return need
        need = self._next(state)
        self._last_need = (state, need)
        return need

    def _next(self, state: Board) -> GameNeed:
        b = state
        if b.phase in ("setup", "intel", "exhaustion"):
            return Draw(b.phase)
        if b.phase == "deploy":
            return Turn(0 if not b.cards[0] else 1, ("deploy",))
        if b.phase == "layout":
            return Turn(0 if not b.layouts[0] else 1, ("layout",))
        if b.phase == "tokens":
            return Turn(0 if b.cards[0][0].token is None else 1, ("tokens",))
        if b.phase == "mission":
            seat = model.guesser(b) if b.stage == "guess" else model.defender(b)
            return Turn(seat, (b.stage,))
        opener = model.final_opener(b)
        if opener is not None:
            return Turn(opener, ("final",))
        return Over(None if b.forfeits else outcome(b))

    def before(self, state: Board, record: Record) -> Board:
        need = self.next(state)
        if not isinstance(need, Turn) or need.seat != record.seat or record.kind not in need.kinds:
            raise OutOfTurn(
                record.seat, record.seq, f"spies-and-lies does not expect {record.kind} now"
            )
        return state

    def on_draw(self, state: Board, seed: bytes) -> Board:
        sizes = model.draw_sizes(state)
        return model.apply_draw(state, [uniform_from(seed, i, k) for i, k in enumerate(sizes)])

    def forfeit(self, state: Board, seat: int, seq: int, reason: str) -> Board:
        return model.forfeit(state, seat)

    def side_of(self, state: Board, seat: int) -> str | None:
        return SIDES[seat]

    def seen_secret(self, state: Board, seat: int) -> str | None:
        return None  # nothing is dealt: every hidden card is the seat's own choice


def outcome(board: Board) -> Result:
    """The natural result once play has ended without a forfeit (rules §7, §10)."""
    if board.captured_by is not None:
        loser = SIDES[model.other(board.captured_by)]
        return Result(SIDES[board.captured_by], "flag captured", detail=f"{loser}'s flag")
    detail = f"DA {board.da:+d}, markers Red {board.markers[0]} Blue {board.markers[1]}"
    if board.da != 0:
        side = model.RED if board.da > 0 else model.BLUE
        return Result(SIDES[side], "double agent on the enemy side after day 3", detail=detail)
    red, blue = board.markers
    if red != blue:
        return Result(SIDES[0 if red > blue else 1], "higher infiltration marker", detail=detail)
    return Result(None, "draw", detail=detail)


# --- record bodies ---------------------------------------------------------------------------


def _int(record: Record, value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedRecord(record.seat, record.seq, f"{what} must be an integer")
    return value


def _bool(record: Record, value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise MalformedRecord(record.seat, record.seq, f"{what} must be a boolean")
    return value


def _bytes32(record: Record, value: Any, what: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != NONCE_BYTES:
        raise MalformedRecord(record.seat, record.seq, f"{what} must be 32 bytes")
    return value


def _list(record: Record, value: Any, length: int, what: str) -> tuple[Any, ...]:
    if not isinstance(value, tuple) or len(value) != length:
        raise MalformedRecord(record.seat, record.seq, f"{what} must be a list of {length}")
    return value


def apply_deploy(b: Board, r: Record, body: dict[str, Any]) -> Board:
    digests = [
        _bytes32(r, d, "a mission digest") for d in _list(r, body["missions"], 4, "missions")
    ]
    return model.deploy(b, r.seat, digests)


def apply_layout(b: Board, r: Record, body: dict[str, Any]) -> Board:
    return model.commit_layout(b, r.seat, _bytes32(r, body["digest"], "digest"))


def apply_tokens(b: Board, r: Record, body: dict[str, Any]) -> Board:
    tokens = [_bool(r, t, "a token") for t in _list(r, body["tokens"], 4, "tokens")]
    nonce = _bytes32(r, body["nonce"], "nonce")
    commitment = Commitment(b.layouts[r.seat], LAYOUT_PURPOSE)
    if not commitment.opens_to([r.seat, b.day, tokens], nonce):
        raise BadOpening(r.seat, r.seq, "the tokens do not open this seat's layout commitment")
    return model.open_layout(b, r.seat, tokens)


def apply_deceive(b: Board, r: Record, body: dict[str, Any]) -> Board:
    return model.deceive(b, _bool(r, body["place"], "place"))


def apply_guess(b: Board, r: Record, body: dict[str, Any]) -> Board:
    return model.guess(b, _int(r, body["rank"], "rank"))


def apply_reveal(b: Board, r: Record, body: dict[str, Any]) -> Board:
    rank = _int(r, body["rank"], "rank")
    nonce = _bytes32(r, body["nonce"], "nonce")
    index = model.target_index(b)
    if not opens_mission(b, r.seat, index, rank, nonce):
        raise BadOpening(r.seat, r.seq, f"{rank} does not open the commitment of M{index + 1}")
    return model.reveal(b, rank)


def apply_captain(b: Board, r: Record, body: dict[str, Any]) -> Board:
    return model.captain(b, _int(r, body["copy"], "copy"))


def apply_marshal(b: Board, r: Record, body: dict[str, Any]) -> Board:
    return model.marshal(b, _bool(r, body["split"], "split"))


def apply_final(b: Board, r: Record, body: dict[str, Any]) -> Board:
    hidden = model.hidden_indices(b, r.seat)
    ranks = []
    for index, entry in zip(hidden, _list(r, body["cards"], len(hidden), "cards")):
        rank, nonce = _list(r, entry, 2, "a card opening")
        rank = _int(r, rank, "rank")
        if not opens_mission(b, r.seat, index, rank, _bytes32(r, nonce, "nonce")):
            raise BadOpening(r.seat, r.seq, f"{rank} does not open the commitment of M{index + 1}")
        ranks.append(rank)
    return model.final_open(b, r.seat, ranks)



