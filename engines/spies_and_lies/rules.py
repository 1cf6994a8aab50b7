"""Stratego: Spies & Lies on the table: records, commitments and draws around ``model``.

(The record kinds are declared once, in the package's ``MOVES``: schema, apply, build.)

Theory of operation
-------------------
Seat 0 plays Red and seat 1 plays Blue. The game state is ``State``: the rulebook's
``model.Board`` (``game``), which holds only public facts, and the table-side fields
(``engines.game.TableSide``: who forfeited) with ``played_out``; ``next`` names who writes
next from the board's phase and stage, ``apply`` checks one record (shape, then openings
and proofs, then rules) and hands the event to ``model``. Each deployment is four
commitments of ``crypto.membership``, one per Mission card, each to its rank under its own
alphabet domain ``spies-and-lies/rank/<seat>/<day>/<mission>`` (so a commitment
copied from another seat's card or another mission opens for nobody), and each card is opened
alone at its step. Each token layout is one hash commitment (crypto.commit), opened by both
seats once both are committed (the token phase is simultaneous, rules §4.2); the opening proves
at once, card by card, that the card's rank is in the hand and agrees with its token
(``model.token_ranks``: a membership proof on the card's commitment), so no forced token can
lie and no exhausted soldier can stand under a card from the first guess on. Public randomness
comes from the beacon: ``on_draw`` turns a round seed into the ``uniform()`` values of that
moment with ``uniform_from(seed, 0, k0)``, ``uniform_from(seed, 1, k1)``, ... in the rules'
order.

When each commitment is proven (docs/records.md lists it too):

* a card's rank in the hand and its forced token: at the ``tokens`` record, the first where the
  token is public (the Intel card is drawn after both deployments, and the layout is hidden
  until both are committed);
* that the four ranks are distinct and in rank order (§4.1: a relation among the four hidden
  cards): at the first reveal after which no legal deployment agrees with what the seat has
  shown (``model.reveal_problem``), at the latest by the end of the round or the final reveal.
  A proof at the deploy record exists (an OR over the legal deployments, up to 294 of them,
  ``membership.prove_row_member``), but it costs about 60 ms to prove and 45 ms to verify and
  20 KB per deployment here, six per game: twenty times the CPU and seven times the bytes of a
  whole game today, so it is not made;
* a card's rank: at its reveal (or the final reveal), which opens the commitment.

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
deploy     each seat   ``{missions: [4 x [point, tag]]}``: commitments to the ranks  Deployment
                       under M1..M4
layout     each seat   ``{digest}``: commitment to ``[seat, day, [t1..t4]]``           Intel
                       (purpose ``spies-and-lies/tokens``)
tokens     each seat   ``{tokens: [t1..t4] (bools), nonce, proofs: [4 proofs]}``:     Intel
                       opens the layout; proof i: M(i)'s rank is in token_ranks
deceive    defender    ``{place: bool}``: D3                                           each step
guess      guesser     ``{rank: 1..10}``: D4                                           each step
reveal     defender    ``{rank, nonce}``: opens the target's commitment (nonce: its    each step
                       32-byte blinding scalar)
captain    defender    ``{copy: int}``: D5, 0 = "6 IP", e = copy exhausted e           when asked
marshal    defender    ``{split: bool}``: D6, false = "10 IP", true = "5 and -5"       when asked
final      each seat   ``{cards: [[rank, nonce], ...]}``: the still-hidden cards,       game over
                       in mission order
=========  ==========  ===========================================================  ===========

Checks and errors: a body of the wrong shape is ``MalformedRecord``; an opening that does not
open its commitment is ``BadOpening``; a token proof that does not verify is ``InvalidProof``; a
choice the rules forbid (a guess outside 1..10, a copy that is not offered) is
``IllegalAction``; a token no rank of the hand can carry, and a valid opening that proves the
hidden deployment illegal (a repeated rank, the rank order broken; a rank outside the hand or a
false token too, which the proofs already exclude) is ``RuleViolation``, raised at the first
reveal after which no legal deployment agrees with what the seat has shown. The table turns any
of these into a forfeit through its ``fraud`` record. A D5 whose only option is "6 IP" is not a
decision: the engine takes 6 IP and no ``captain`` record is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from spycraft.crypto import membership
from spycraft.crypto.commit import Commitment
from spycraft.crypto.errors import BadOpening, MalformedRecord, ProofError
from spycraft.crypto.group import Scalar
from spycraft.crypto.hashing import uniform_from
from spycraft.crypto.records import Genesis, Record
from spycraft.engines.errors import Violation
from spycraft.engines.evolve import evolve
from spycraft.engines.game import Move, Played, Rules, TableSide
from spycraft.engines.schema import Body
from spycraft.engines.spies_and_lies import ABOUT, model
from spycraft.engines.spies_and_lies.model import SIDES, Board, Phase
from spycraft.engines.table import Draw, GameNeed, Over, Result, Turn

GAME = "spies-and-lies"
LAYOUT_PURPOSE = "spies-and-lies/tokens"


def rank_domain(seat: int, day: int, mission: int) -> str:
    """The alphabet domain of one Mission card's rank (``membership.value_point``)."""
    return f"spies-and-lies/rank/{seat}/{day}/{mission}"


def mission_commitment(seat: int, day: int, mission: int, rank: int, blinding: Scalar
                       ) -> membership.Commitment:
    return membership.commit(rank_domain(seat, day, mission), str(rank), blinding)


def layout_commitment(seat: int, day: int, tokens: Sequence[bool], nonce: bytes) -> Commitment:
    return Commitment.to(LAYOUT_PURPOSE, [seat, day, list(tokens)], nonce)


def card_commitment(board: Board, seat: int, index: int) -> membership.Commitment:
    return membership.Commitment.decode(board.cards[seat][index].commitment)


def opens_mission(board: Board, seat: int, index: int, rank: int, blinding: bytes) -> bool:
    """Whether (rank, blinding) opens M(index+1) of ``seat`` (a 32-byte scalar encoding)."""
    return card_commitment(board, seat, index).opens(
        rank_domain(seat, board.day, index + 1), str(rank), Scalar.decode(blinding))


def token_set(board: Board, seat: int, token: bool) -> tuple[str, ...]:
    """The alphabet values a card with ``token`` is proven to hold (``model.token_ranks``)."""
    return tuple(str(r) for r in model.token_ranks(board, seat, token))


@dataclass(frozen=True, kw_only=True)
class State(TableSide):
    """The game's state: the rulebook's ``Board`` and the table-side fields; ``played_out``:
    play had ended (its result fixed) before the first forfeit."""

    game: Board = field(default_factory=Board)
    played_out: bool = False


class SpiesAndLies(Rules[State]):
    """The ``GameRules`` of Stratego: Spies & Lies (no options, two seats)."""

    about = ABOUT
    sides: tuple[str, ...] = SIDES

    final_reveal = ("final",)

    def seats_of(self, state: State) -> int:
        return 2

    def initial(self, genesis: Genesis) -> State:
        return State()

    def __init__(self, table: Mapping[str, Move[State]]) -> None:
        super().__init__(table)
        # The last board ``next`` answered for, and its answer: the table asks several times for
        # one state (who writes next, then the record's turn). States are immutable and the
        # memo holds the state, so ``is`` cannot match another; one tuple, so threads that share
        # these rules read a matching pair.
        self._last_need: tuple[State | None, GameNeed | None] = (None, None)

    def next(self, state: State) -> GameNeed:
        board, need = self._last_need
        if board is state and need is not None:
            return need
        need = self._next(state)
        self._last_need = (state, need)
        return need

    def _next(self, state: State) -> GameNeed:
        return WAITS_FOR[state.game.phase](state)

    def on_draw(self, state: State, seed: bytes) -> State:
        b = state.game
        values = [uniform_from(seed, i, k) for i, k in enumerate(model.draw_sizes(b))]
        return evolve(state, game=model.apply_draw(b, values))

    def forfeit(self, state: State, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (), confirm: tuple[int, ...] = ()) -> State:
        """Play stops at once; the seat opens nothing more (the table settles the result), nor
        does the other where this is its claim in play (``TableSide.held``). A forfeit in
        the final reveal leaves the result play fixed (``played_out``)."""
        played_out = state.played_out or (state.game.phase == "over" and not state.forfeits)
        forfeits, held = state.with_forfeit(seat, held)
        return evolve(state, game=model.stop(state.game), forfeits=forfeits, held=held,
                      played_out=played_out)

    def side_of(self, state: State, seat: int) -> str | None:
        return SIDES[seat]

    def seen_secret(self, state: State, seat: int) -> str | None:
        return None  # nothing is dealt: every hidden card is the seat's own choice


# --- what each phase waits for (rules §8) ------------------------------------------------------


def _mission(state: State) -> GameNeed:
    b = state.game
    return Turn(model.guesser(b) if b.stage == "guess" else model.defender(b), (b.stage,))


def _over(state: State) -> GameNeed:
    """The final reveal of the seats still playing, then the result: the one play fixed, unless
    a seat forfeited before play ended."""
    opener = model.final_opener(state.game, state.forfeits + state.held)
    if opener is not None:
        return Turn(opener, ("final",))
    return Over(outcome(state.game) if state.played_out or not state.forfeits else None)


WAITS_FOR: Mapping[Phase, Callable[[State], GameNeed]] = {
    "setup": lambda s: Draw("setup"),
    "deploy": lambda s: Turn(0 if not s.game.cards[0] else 1, ("deploy",)),  # Red, then Blue
    "intel": lambda s: Draw("intel"),  # the Intel card
    "layout": lambda s: Turn(0 if not s.game.layouts[0] else 1, ("layout",)),
    "tokens": lambda s: Turn(0 if s.game.cards[0][0].token is None else 1, ("tokens",)),
    "mission": _mission,  # per step: deceive?, guess, reveal, captain?, marshal?
    "exhaustion": lambda s: Draw("exhaustion"),  # after step 8 of day 1 or 2
    "over": _over,  # the final reveal, then the result
}
"""What the game waits for in each phase of the board (``model.Phase``), in the rules' order."""


def outcome(board: Board) -> Result:
    """The natural result once play has ended before any forfeit (rules §7, §10)."""
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


def apply_deploy(b: Board, r: Record, body: Body) -> Board:
    commitments = [membership.Commitment.decode(c) for c in body["missions"]]
    return model.deploy(b, r.seat, [(c.point.encode(), c.tag.encode()) for c in commitments])


def apply_layout(b: Board, r: Record, body: Body) -> Board:
    return model.commit_layout(b, r.seat, body["digest"])


def apply_tokens(b: Board, r: Played, body: Body) -> Board:
    tokens, nonce = list(body["tokens"]), body["nonce"]
    commitment = Commitment(b.layouts[r.seat], LAYOUT_PURPOSE)
    if not commitment.opens_to([r.seat, b.day, tokens], nonce):
        raise BadOpening(r.seat, r.seq, "the tokens do not open this seat's layout commitment")
    for index, (token, proof) in enumerate(zip(tokens, body["proofs"])):
        allowed = token_set(b, r.seat, token)
        mission = f"M{index + 1}"
        if not allowed:
            raise Violation(f"no soldier in the hand can carry {mission}'s "
                            f"{'token' if token else 'missing token'}")
        try:
            membership.verify_member(card_commitment(b, r.seat, index),
                                     rank_domain(r.seat, b.day, index + 1), allowed,
                                     membership.decode_proof(proof, allowed), r.context)
        except ProofError:
            raise ProofError(f"{mission} is not proven to hold a soldier of the hand that "
                             f"agrees with its {'token' if token else 'missing token'}") from None
    return model.open_layout(b, r.seat, tokens)


def apply_deceive(b: Board, r: Record, body: Body) -> Board:
    return model.deceive(b, body["place"])


def apply_guess(b: Board, r: Record, body: Body) -> Board:
    return model.guess(b, body["rank"])


def apply_reveal(b: Board, r: Record, body: Body) -> Board:
    rank, nonce = body["rank"], body["nonce"]
    index = model.target_index(b)
    if not opens_mission(b, r.seat, index, rank, nonce):
        raise BadOpening(r.seat, r.seq, f"{rank} does not open the commitment of M{index + 1}")
    return model.reveal(b, rank)


def apply_captain(b: Board, r: Record, body: Body) -> Board:
    return model.captain(b, body["copy"])


def apply_marshal(b: Board, r: Record, body: Body) -> Board:
    return model.marshal(b, body["split"])


def apply_final(b: Board, r: Record, body: Body) -> Board:
    hidden = model.hidden_indices(b, r.seat)
    ranks = []
    if len(body["cards"]) != len(hidden):
        raise MalformedRecord(r.seat, r.seq, f"cards must be a list of {len(hidden)}")
    for index, (rank, nonce) in zip(hidden, body["cards"]):
        if not opens_mission(b, r.seat, index, rank, nonce):
            raise BadOpening(r.seat, r.seq, f"{rank} does not open the commitment of M{index + 1}")
        ranks.append(rank)
    return model.final_open(b, r.seat, ranks)



