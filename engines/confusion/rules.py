"""Confusion on the table: commitments, proofs and draws around ``model``.

(The record kinds are declared once, in the package's ``MOVES``: schema, apply, build.)

Theory of operation
-------------------
Seat 0 plays White, seat 1 Red (§1). Every movement type is hidden in a commitment of
``crypto.membership`` (alphabet domain ``confusion/type``): the pair ``(r*G + V(t), r*H)``,
made by the opponent of the spy's owner, so the owner never holds an opening of its own spies'
types. Each seat commits to the 13 types of the other side's spies in an order only it knows,
and proves in the same record that its 13 commitments hold the 13 types, each once
(``membership.prove_permutation``: a proof of a shuffle of the 13 public types); one beacon
round then draws §4's permutation of each side's commitments onto its spies (White's spies
first) and, unless the ``first`` option fixes it, the first player. From then on every fact
about a hidden type is a proof that the spy's commitment lies in a set, made by the seat that
committed it and checked here before the fact is accepted:

=========  ==========  ================================================================  =========
kind       writer      body                                                              proves
=========  ==========  ================================================================  =========
assign     each seat   ``{commitments: [13 x [point, tag]], proof}``, the other side's    the 13
                       types                                                             types
token      player      ``{token: none|reveal|double|swap|resign, spies: [0-2 ids]}``     -
show       opponent    ``{type, proof}``: the revealed spy's type                        in {type}
free       player      ``{action, spy: id|null, proof: null|proof}``                     in {DA}
announce   player      ``{spy, mode, to}``                                               -
answer     opponent    ``{yes, proof, promotion: null|[promoted, proof]}``               answer set
statement  opponent    ``{promoted, proof}``: a swapped spy on its goal row              crown set
final      each seat   ``{openings: [[type, blinding] x 13]}``, in commitment order       opens
=========  ==========  ================================================================  =========

So every commitment is proven to be what the rules require when it is made (DESIGN §4): a
Red that commits 13 Double Agents (free answers for every White spy) is refused at its
``assign`` record. An ``answer`` proves that the spy's type lies in
``movement.answer_sets(line)`` for the answer given (the DA in both sets, so its free answer has
a proof too); a promotion statement proves the type lies in the crowns or in the rest (the DA
among the rest). ``eliminate_opp_da`` is made by the seat that committed the opponent's types,
so it proves "in {DA}" of its own commitment; a ``show`` proves "in {t}". These singleton proofs
show a type without opening the commitment, so every blinding stays secret until ``final``.
Each proof's context is ``game.proof_context`` of its record (table, seq, seat, kind), so a
proof from another turn, record or table does not verify. Behind the proofs, ``model`` refuses
any record whose public facts no assignment of the types could explain (a second Double Agent,
a type shown twice, contradicting answers), at that record.

The final reveal is still needed: it is where every type is shown to everyone (§9.5, §12) and
the replay's hindsight comes from. What it checks is that each opening opens its commitment;
that the openings are the 13 types and agree with every answer follows from the proofs above,
and ``model.final_open`` checks it again as §9.5 states.

Errors: a proof that does not verify is ``InvalidProof``; an announcement the rules forbid is
``IllegalAction``; an opening that does not open is ``BadOpening``; public facts that contradict
each other, and openings that are not the 13 types or contradict an earlier answer, are
``RuleViolation``. The table turns each into a forfeit through its ``fraud`` record (DESIGN
"Fraud and abandonment").
"""

from __future__ import annotations

from dataclasses import dataclass

from spycraft.crypto.errors import BadOpening
from spycraft.crypto.group import Scalar
from spycraft.crypto.hashing import uniform_from
from spycraft.crypto.membership import (
    Commitment,
    decode_permutation_proof,
    decode_proof,
    verify_member,
    verify_permutation,
)
from spycraft.crypto.records import Genesis, Record
from spycraft.engines.confusion import ABOUT, model
from spycraft.engines.confusion.board import SIDE_NAMES, side_of, square
from spycraft.engines.confusion.model import Game
from spycraft.engines.confusion.movement import (
    MODES,
    TYPE_IDS,
    Announcement,
    answer_sets,
    movement_type,
    promotion_sets,
)
from spycraft.engines.errors import Illegal
from spycraft.engines.evolve import evolve
from spycraft.engines.game import Played, Rules, TableSide
from spycraft.engines.schema import Body
from spycraft.engines.table import Draw, GameNeed, Over, Result, Turn

GAME = "confusion"
TYPE_DOMAIN = "confusion/type"


@dataclass(frozen=True, kw_only=True)
class State(TableSide):
    """The game's state: the rulebook's ``Game`` and the table-side fields (who forfeited)."""

    game: Game


class Confusion(Rules[State]):
    """The ``GameRules`` of Confusion: two seats, options ``tokens`` and ``first``."""

    about = ABOUT
    sides: tuple[str, ...] = SIDE_NAMES
    final_reveal = ("final",)

    def seats_of(self, state: State) -> int:
        return 2

    def initial(self, genesis: Genesis) -> State:
        options = genesis.options
        return State(game=model.start(genesis.table, bool(options["tokens"]),
                                      str(options["first"])))

    def next(self, state: State) -> GameNeed:
        g = state.game
        if g.phase == "draw":
            return Draw("assignment")
        expected = g.expected(state.forfeits + state.held)
        if expected is not None:
            return Turn(expected[0], (expected[1],))
        if g.outcome is None:
            return Over(None)
        # Every fact of play was proven when it was made: ``final`` cannot change the outcome.
        return Over(outcome(g), fixed=True)

    def on_draw(self, state: State, seed: bytes) -> State:
        g = state.game
        values = [uniform_from(seed, i, k) for i, k in enumerate(model.draw_sizes(g))]
        return evolve(state, game=model.apply_draw(g, values))

    def forfeit(self, state: State, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (), confirm: tuple[int, ...] = ()) -> State:
        """Play stops at once; the seat opens nothing more, nor does the other where this is
        its claim in play (``TableSide.held``)."""
        forfeits, held = state.with_forfeit(seat, held)
        return evolve(state, game=model.stop(state.game), forfeits=forfeits, held=held)

    def side_of(self, state: State, seat: int) -> str | None:
        return SIDE_NAMES[seat]

    def seen_secret(self, state: State, seat: int) -> str | None:
        return "the types of the opponent's spies" if state.game.assigned[0] else None


def outcome(g: Game) -> Result:
    assert g.outcome is not None
    winner = None if g.outcome.winner is None else SIDE_NAMES[g.outcome.winner]
    return Result(winner, g.outcome.reason, detail=g.outcome.detail)


# --- checks shared by the records -------------------------------------------------------------


def _spy(value: str) -> str:
    side_of(value)
    return value


def _type(value: str) -> str:
    if value not in TYPE_IDS:
        movement_type(value)  # Illegal naming the value
        raise Illegal(f"{value} is not one of the 13 assigned types")
    return value


def _check(g: Game, record: Played, spy: str, allowed: tuple[str, ...], proof: object) -> None:
    commitment = Commitment.decode(g.commitment_of(spy))
    verify_member(commitment, TYPE_DOMAIN, allowed, decode_proof(proof, allowed),
                  record.context)


# --- record bodies ----------------------------------------------------------------------------


def apply_assign(g: Game, r: Played, body: Body) -> Game:
    commitments = tuple(Commitment.decode(c) for c in body["commitments"])
    proof = decode_permutation_proof(body["proof"], TYPE_IDS)
    verify_permutation(commitments, TYPE_DOMAIN, TYPE_IDS, proof, r.context)
    encoded = tuple((c.point.encode(), c.tag.encode()) for c in commitments)
    return model.commit_assignment(g, r.seat, encoded)


def apply_token(g: Game, r: Record, body: Body) -> Game:
    spies = tuple(_spy(s) for s in body["spies"])
    return model.use_token(g, body["token"], spies)


def apply_show(g: Game, r: Played, body: Body) -> Game:
    assert g.reveal is not None
    shown = _type(body["type"])
    _check(g, r, g.reveal, (shown,), body["proof"])
    return model.show(g, shown, r.seq)


def apply_free(g: Game, r: Played, body: Body) -> Game:
    action, spy, proof = body["action"], body["spy"], body["proof"]
    if action not in model.FREE_ACTIONS:
        raise Illegal(f"no free action is called {action!r}")
    if (action == "eliminate_opp_da") != (proof is not None):
        raise Illegal("a proof comes with eliminate_opp_da and nothing else")
    if spy is not None:
        _spy(spy)
    if action == "eliminate_opp_da":
        if spy is None or side_of(spy) == g.turn or spy not in g.spies_on_board(side_of(spy)):
            raise Illegal(f"eliminate_opp_da needs an opponent's spy on the board, not {spy}")
        _check(g, r, spy, ("DA",), proof)
    return model.free_action(g, action, spy, r.seq)


def apply_announce(g: Game, r: Record, body: Body) -> Game:
    mode = body["mode"]
    if mode not in MODES:
        raise Illegal(f"no mode is called {mode!r}")
    return model.announce(g, Announcement(_spy(body["spy"]), mode, square(body["to"])))


def apply_answer(g: Game, r: Played, body: Body) -> Game:
    assert g.pending is not None and g.asked is not None
    spy, yes = g.pending.spy, body["yes"]
    _check(g, r, spy, answer_sets(g.asked).for_answer(yes), body["proof"])
    promoted = None
    if body["promotion"] is not None:
        promoted, proof = body["promotion"]
        _check(g, r, spy, promotion_sets().for_answer(promoted), proof)
    return model.answer(g, yes, promoted, r.seq)


def apply_statement(g: Game, r: Played, body: Body) -> Game:
    promoted = body["promoted"]
    _check(g, r, g.statements[0], promotion_sets().for_answer(promoted), body["proof"])
    return model.statement(g, promoted, r.seq)


def apply_final(state: State, r: Record, body: Body) -> State:
    """The final reveal, which ends when every seat that has not forfeited has opened: the one
    rule that reads the table-side fields."""
    g = state.game
    commitments = g.commitments[1 - r.seat]
    opened = []
    for i, (type_id, blinding) in enumerate(body["openings"]):
        _type(type_id)
        if not Commitment.decode(commitments[i]).opens(TYPE_DOMAIN, type_id,
                                                       Scalar.decode(blinding)):
            raise BadOpening(r.seat, r.seq, f"commitment {i} does not open to {type_id}")
        opened.append(type_id)
    return evolve(state, game=model.final_open(g, r.seat, tuple(opened), state.forfeits))
