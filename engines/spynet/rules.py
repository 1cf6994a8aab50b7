"""SpyNet over signed records: one mental-poker deck carries every hidden card (DESIGN.md §5).

Theory of operation
-------------------
``SpyNetRules`` is the game's ``GameRules`` on the kit (``engines.game``). Its state is the
public game (``model.Game``, over deck positions) and the deck (``engines.protocols.deck_ops``).
The engine never knows which seat is local. Acts:

``setup``   ``deck_key`` and ``deck_shuffle`` by every seat (the 76-card deck, every shuffle
            proven), then one beacon ``Draw``: the first player ``uniform(n)`` and, under
            ``random``, the situation ``uniform(8)``.
``play``    the rules' flow; each decision is one record of the seat whose turn it is. Whenever
            the game needs cards shown (``model.Game.reveal``) the engine opens a deck reveal
            and the seats that owe tokens write ``deck_tokens`` (public tokens with proofs, or
            a token sealed to the receiver by a seat that already knows the card, proven to be
            its true token and checked at once like a public one): the draft
            hands to each drafter, a pile to the recruit that looks at it, the drawn card to
            its drawer, a passed card to the teammate, and publicly the agent and funding
            played, a special discard, an S03 mission, S07's discards. A public reveal whose
            faces contradict the record that asked for it (no agent, no funding, a special
            discard that is another card) is a violation of that record: play stops and the
            seat forfeits. A card named that is not in the seat's hand, a mission without
            dominance, a second pass are refused at once. A face-down mission carries an
            OR-proof that it is a mission of its branch, checked at once
            (``apply_play_mission``): every other seat's token of a card in a hand is public or
            sealed to its holder, so the public knows face + x_h * base for it
            (``deck_ops.holder_statement``).
``reveal``  ``reveal`` by every seat that has not forfeited: its key share secret (checked
            against its public share). Once every share is in, the engine opens every card and
            scores the game from the faces (§9). A forfeiter owes nothing (``engines.table``):
            its closed share leaves closed the cards only it can open, and nothing is left to
            judge on them (every seal and every face-down mission was proven when made).
            Everything else opens (``open_without_forfeiters``): a card opens once every seat's
            token of it is known, from a revealed secret, a public token or a token sealed to a
            seat that revealed; so every card a seat that revealed was shown opens (its other
            tokens are public or sealed to it, as ``holder_statement`` says). What stays closed
            is a forfeiter's face-down missions that no such seat saw. Each is one of the
            missions of its branch (its OR-proof) that is open nowhere else, and it scores for
            its owner only: §2.5's conditions read the owner's tableau and the public powers,
            no card's points depend on another seat's hidden cards, so the closed missions of a
            side bound its own points and nobody else's (``score_bounds``). If play ended (no
            forfeit stopped it), the result of play is the one every face they could have
            gives (``decided_result``): then it stands, whoever forfeited (``Over.fixed``: the
            stall gains nothing and costs nothing); otherwise there is none and the forfeit
            decides by the one rule (``table.settle``: the forfeiter's side loses, and the
            sides left are ranked as play ranked them where their points decide it,
            ``State.among``; at two seats, or on its public opponents' votes alone, it is a
            claim and nobody wins).
``done``    the result (``natural_result``): the team with the most points; a tie goes to the
            most funding cards (``TIE_BREAK``); still tied, the tied teams share the win. After
            a forfeit in the final reveal the detail gives a side with closed missions as a
            range: ``seat 0 18 to 21 (6 missions closed)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from spycraft.crypto import proofs
from spycraft.crypto.deck import Faces
from spycraft.crypto.errors import MalformedRecord
from spycraft.crypto.group import Point
from spycraft.crypto.hashing import uniform_from
from spycraft.crypto.proofs import OneOfProof
from spycraft.crypto.records import Genesis, Record
from spycraft.engines.errors import Illegal
from spycraft.engines.game import PLAY, REVEAL, Cheat, KeyShareRules, KeyShareState, Played
from spycraft.engines.protocols import deck_ops
from spycraft.engines.schema import Body
from spycraft.engines.spynet import ABOUT
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet import setup as SU
from spycraft.engines.spynet.cards import (
    BRANCHES,
    DECK,
    OPEN_SECRETS,
    SITUATIONS,
    Branch,
    Kind,
    card,
)
from spycraft.engines.spynet.deploy import EffectUse, Target
from spycraft.engines.spynet.scoring import (
    Board,
    Score,
    condition_holds,
    opponents,
    score,
    teams,
)
from spycraft.engines.table import SHARED, Draw, GameNeed, Over, Result, Turn

GAME = "spynet"
FACES = Faces.of("spynet/deck", DECK)
SIDES = ("seat 0", "seat 1", "seat 2", "team 0+2", "team 1+3")
DECISION_KINDS = ("play_agent", "play_mission", "pass_card", "end_deploy")


def side_name(team: tuple[int, ...]) -> str:
    return f"team {team[0]}+{team[1]}" if len(team) == 2 else f"seat {team[0]}"


@dataclass(frozen=True)
class State(KeyShareState):
    """The rulebook's game over deck positions and the deck, with what the records add; the
    act, the final reveal and the forfeits are the kit's fields (``KeyShareState``: nothing is
    ever ``unjudged``, every hidden card is proven when played)."""

    n: int
    option: str
    table: bytes
    ops: deck_ops.DeckOps
    game: M.Game | None = None  # None until the beacon names the first player
    asked_by: tuple[int, int] = (0, 0)  # (seat, seq) of the record whose reveal is open
    revealing: bool = False
    faces: tuple[str, ...] = ()  # every position's face, after the final reveal
    final: Score | None = None  # the score, once every mission in play is open
    outcome: Result | None = None  # the result of play, where the final reveal decides it
    # where it does not: the result of play between the sides with no forfeiter (``_audit``)
    among: tuple[tuple[frozenset[str], Result], ...] = ()

    @property
    def stage(self) -> str:
        return self.act


class SpyNetRules(KeyShareRules[State]):
    """The table's ``GameRules`` of SpyNet; the moves come from the package's table, the final
    reveal and the forfeits from the kit (``engines.game.KeyShareRules``)."""

    about = ABOUT
    sides: tuple[str, ...] = SIDES

    def initial(self, genesis: Genesis) -> State:
        n = len(genesis.seats)
        return State(
            n=n,
            option=SU.check_situation(genesis.options["situation"]),
            table=genesis.table,
            ops=deck_ops.new(n, FACES),
            secrets=(None,) * n,
        )

    def after(self, state: State) -> State:
        return self.settle_reveals(state)

    def play(self, state: State) -> GameNeed:
        dealing = deck_ops.turn(state.ops)  # (a reveal left open by a forfeit is never finished)
        if dealing is not None:
            return dealing
        game = state.game
        if game is None:
            return Draw("first_player")
        seat = game.current
        if game.phase == M.DRAFT:
            return Turn(seat, ("draft_pick",))
        if game.phase == M.ACTION:
            return Turn(seat, ("action",))
        if game.phase == M.RECRUIT:
            return Turn(seat, ("pile",))
        if game.phase == M.EFFECT:
            return Turn(seat, ("effect",))
        if game.phase == M.PAPER:
            return Turn(seat, ("paper_trail",))
        return Turn(seat, DECISION_KINDS)

    def on_draw(self, state: State, seed: bytes) -> State:
        first = uniform_from(seed, 0, state.n)
        draw = uniform_from(seed, 1, len(SITUATIONS)) if state.option == SU.RANDOM else None
        situation = SU.situation_in_play(state.option, draw)
        return self.settle_reveals(
            replace(state, game=M.new_game(state.n, first, situation), act=PLAY)
        )

    def dealing(self, state: State) -> deck_ops.DeckOps:
        return state.ops

    def audit(self, state: State) -> State:
        return _audit(state)

    def natural(self, state: State) -> Result | None:
        return None if state.violations else state.outcome

    def over(self, state: State) -> Over:
        """The result of play is fixed when it is the same whatever a forfeiter's closed
        missions hold (``_audit``): then nothing left to open can change it."""
        over = super().over(state)
        return replace(over, fixed=over.natural is not None, among=state.among)

    def settle_reveals(self, state: State) -> State:
        """Run the deck reveals the game asks for, and what follows each, as far as possible."""
        while state.act == PLAY and state.game is not None:
            game = state.game
            need = game.reveal
            if need is None:
                if game.phase == M.END:
                    return replace(state, act=REVEAL)
                return state
            ops = state.ops
            if not state.revealing:
                ops = deck_ops.request(ops, need.cards, need.to)
                state = replace(state, ops=ops, revealing=True)
            if ops.pending is not None:
                return state
            faces = {c: f for c in need.cards if (f := ops.face(c)) is not None}
            state = replace(state, revealing=False)
            try:
                state = replace(state, game=M.revealed(game, faces))
            except Illegal as exc:
                seat, seq = state.asked_by
                cheat = Cheat(seat, seq, str(exc))
                state = replace(state, violations=state.violations + (cheat,))
                return self.finish(replace(state, act=REVEAL))
        return state

    def side_of(self, state: State, seat: int) -> str | None:
        return side_name(next(t for t in teams(state.n) if seat in t))

    def public_opponents(self, state: State, seat: int) -> frozenset[int]:
        """At four seats the teams sit opposite, known to all: the other team is one party."""
        return frozenset(opponents(seat, state.n)) if state.n == 4 else frozenset()

TIE_BREAK = "tie broken by funding cards"


def natural_result(final: Score) -> Result:
    """§9.4: the most points wins; a tie goes to the tied team with the most funding cards in
    play (reason ``TIE_BREAK``); still tied, the tied teams share the win (``SHARED``, every
    sharing side named). The detail gives the points, and the funding cards of a tie."""
    detail = ", ".join(f"{side_name(t)} {p}" for t, p in zip(final.teams, final.points))
    best = max(final.points)
    tied = [i for i, p in enumerate(final.points) if p == best]
    if len(tied) > 1:
        funding = ", ".join(f"{side_name(final.teams[i])} {final.funding[i]}" for i in tied)
        detail += f"; tied on points, funding cards: {funding}"
    if len(final.winners) > 1:
        return Result(None, SHARED, detail=detail, shared=tuple(map(side_name, final.winners)))
    reason = "score" if len(tied) == 1 else TIE_BREAK
    return Result(side_name(final.winners[0]), reason, detail=detail)




# --- the records of play ----------------------------------------------------------------------


def _game(state: State) -> M.Game:
    if state.game is None:
        raise Illegal("the game has not started")
    return state.game


def _step(
    move: Callable[..., M.Game],
) -> Callable[[State, Record, Body], State]:
    """A decision record: the model's move by the writer, remembered for its reveal."""

    def apply(state: State, record: Record, body: Body) -> State:
        game = move(_game(state), record, body)
        return replace(state, game=game, asked_by=(record.seat, record.seq))

    return apply


apply_draft_pick = _step(lambda g, r, b: M.draft_pick(g, r.seat, b["card"]))
apply_action = _step(lambda g, r, b: M.choose_action(g, r.seat, b["recruit"]))
apply_pile = _step(lambda g, r, b: M.pile_choice(g, r.seat, b["take"]))
apply_play_agent = _step(
    lambda g, r, b: M.play_agent(g, r.seat, b["card"], M.branch_of(b["branch"]), b["funding"])
)
def apply_play_mission(state: State, record: Played, body: Body) -> State:
    """§7.2, and the face-down card proven at once to be a mission of its branch: an OR-proof
    over the branch's missions against the card's statement (``mission_statement``). Under S03
    the card is shown instead, so the proof is null."""
    position, branch = body["card"], M.branch_of(body["branch"])
    game = M.play_mission(_game(state), record.seat, position, branch, record.seq)
    state = replace(state, game=game, asked_by=(record.seat, record.seq))
    statement = mission_statement(state, record.seat, position)
    proof = body["proof"]
    if statement is None:
        if proof is not None:
            raise MalformedRecord(record.seat, record.seq, "a mission played face up takes no "
                                  "proof (null)")
        return state
    if proof is None:
        raise MalformedRecord(
            record.seat, record.seq, "a face-down mission carries the proof that it is a "
            "mission of its branch"
        )
    base, residue = statement
    candidates = mission_points(branch)
    proofs.verify_encrypts_one_of(
        base, state.ops.key_shares[record.seat], residue, candidates,
        OneOfProof.decode(proof, len(candidates)), record.context,
    )
    return state


def mission_statement(state: State, seat: int, position: int) -> tuple[Point, Point] | None:
    """What a face-down mission in ``seat``'s hand is proven against
    (``deck_ops.holder_statement``); None under S03, where missions are played face up."""
    game = state.game
    if game is None or game.situation == OPEN_SECRETS:
        return None
    return deck_ops.holder_statement(state.ops, position, seat)


def mission_faces(branch: Branch) -> tuple[str, ...]:
    """The faces a mission played face down in ``branch`` may have (§7.2), in deck order."""
    return tuple(
        c for c in DECK if card(c).kind is Kind.MISSION and card(c).belongs_to(branch)
    )


def mission_points(branch: Branch) -> tuple[Point, ...]:
    return tuple(FACES.points[FACES.labels.index(c)] for c in mission_faces(branch))


apply_pass_card = _step(lambda g, r, b: M.pass_card(g, r.seat, b["card"]))
apply_end_deploy = _step(lambda g, r, b: M.end_deploy(g, r.seat))
apply_paper_trail = _step(lambda g, r, b: M.paper_trail(g, r.seat, b["cards"]))


def effect_use(
    value: tuple[int | None, int, str, int, str | None] | None,
) -> tuple[EffectUse | None, int | None]:
    """The body's ``use``: null, or [discard position or null, seat, branch, depth, destination
    or null]; the discard's face is shown before the use applies."""
    if value is None:
        return None, None
    discard, seat, branch, depth, destination = value
    target = Target(seat, M.branch_of(branch), depth)
    dest = None if destination is None else M.branch_of(destination)
    return EffectUse(target, None, dest), discard


def _apply_effect(g: M.Game, r: Record, b: Body) -> M.Game:
    use, discard = effect_use(b["use"])
    return M.play_effect(g, r.seat, use, discard)


apply_effect = _step(_apply_effect)


# --- the final reveal --------------------------------------------------------------------------


def _audit(state: State) -> State:
    """Every card that opens without the forfeiters opened, and the game scored (§9.2) where
    the faces decide it. Nothing hidden is left to judge: every seal and every face-down mission
    was proven when it was made. Once every key share is in, every card opens (``faces``) and
    the score is exact (``final``). A forfeiter's closed share keeps closed the cards that only
    it can open (``engines.table``, "What a forfeiter owes"): its face-down missions that no
    seat that revealed was shown. Each of them is one of its branch's missions (proven when
    played) that is open nowhere else, and it scores for its owner's side only (§2.5 reads the
    owner's tableau and the public powers), so every side's points lie between two bounds;
    the result of play is the one every such face gives (``decided_result``), or none; then the
    sides with no forfeiter are ranked among themselves the same way (``State.among``), for
    the forfeit rule to decide between them once the forfeiter's side lost."""
    game = state.game
    if game is None:
        return state
    if all(s is not None for s in state.secrets):
        secrets = [s for s in state.secrets if s is not None]
        deck = state.ops.deck
        faces = tuple(deck.open_with_secrets(p, secrets) for p in range(len(deck)))
        state = replace(state, faces=faces)
        if state.violations or game.phase != M.END:
            return state
        final = score(M.board_with_missions(game, dict(enumerate(faces))))
        return replace(state, final=final, outcome=natural_result(final))
    if state.violations or game.phase != M.END:
        return state
    opened = open_without_forfeiters(state)
    closed = [m for piles in game.missions for pile in piles for m in pile
              if m.position not in opened]
    if not closed:
        final = score(M.board_with_missions(game, opened))
        return replace(state, final=final, outcome=natural_result(final))
    low, high, funding, shut = score_bounds(game, opened)
    sides = teams(state.n)
    outcome = decided_result(sides, low, high, funding, shut)
    if outcome is not None:
        return replace(state, outcome=outcome)
    # No result whatever the closed missions hold: the forfeit decides (``table.settle``), and
    # where it leaves two sides or more, play ranks them if their points decide it.
    left = [i for i, side in enumerate(sides) if not set(side) & set(state.forfeits)]
    if not 1 < len(left) < len(sides):
        return state
    def kept(values: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(values[i] for i in left)

    between = decided_result(tuple(sides[i] for i in left), kept(low), kept(high), kept(funding),
                             kept(shut))
    if between is None:
        return state
    return replace(state, among=((frozenset(side_name(sides[i]) for i in left), between),))


def open_without_forfeiters(state: State) -> dict[int, str]:
    """The face of every card whose every seat's token is known without the seats that did not
    reveal: a revealed seat's from its secret, a token published, or a token sealed to a seat
    that revealed (opened with that seat's secret; proven when it was sealed). Every token is
    proven, so every card found opens to a face of the deck."""
    ops, deck = state.ops, state.ops.deck
    secrets = {seat: s for seat, s in enumerate(state.secrets) if s is not None}
    opened: dict[int, str] = {}
    for card_at in range(len(deck)):
        face = ops.face(card_at)
        if face is not None:
            opened[card_at] = face
            continue
        tokens = []
        for seat in range(state.n):
            secret = secrets.get(seat)
            if secret is not None:
                tokens.append(deck.cards[card_at].c1 * secret)
                continue
            token = next((t for s, t in ops.public[card_at] if s == seat), None)
            if token is None:
                token = next((deck.unseal_token(x.sealed, secrets[x.receiver])
                              for x in ops.seals if x.card == card_at and x.sender == seat
                              and x.receiver in secrets), None)
            if token is None:
                break
            tokens.append(token)
        else:
            opened[card_at] = deck.open(card_at, tokens)
    return opened


def score_bounds(
    game: M.Game, opened: dict[int, str]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Per team (``teams``): the fewest and the most points it can have, its funding cards and
    how many of its missions are closed. An open mission scores as §9 says. The ``k`` closed
    missions of one pile are ``k`` different missions of its branch that are open nowhere
    (every card of the deck is one face, once, by the proven shuffles), each scoring its stars
    if its condition holds in that pile: the ``k`` that score least and the ``k`` that score
    most bound the pile. (A two-branch mission counted for two piles only widens the bounds.)"""
    taken = set(opened.values())
    placeholder = {b: next(f for f in mission_faces(b)) for b in BRANCHES}
    faces = {m.position: opened.get(m.position, placeholder[branch])
             for piles in game.missions for branch, pile in zip(BRANCHES, piles) for m in pile}
    board = M.board_with_missions(game, faces)  # a closed mission's face changes no condition
    low, high, shut = [0] * game.n, [0] * game.n, [0] * game.n
    for seat, piles in enumerate(game.missions):
        for branch, pile in zip(BRANCHES, piles):
            for m in pile:
                if m.position in opened:
                    points = _points(board, seat, branch, opened[m.position])
                    low[seat] += points
                    high[seat] += points
            k = sum(m.position not in opened for m in pile)
            if not k:
                continue
            worth = sorted(_points(board, seat, branch, f) for f in mission_faces(branch)
                           if f not in taken)
            low[seat] += sum(worth[:k])
            high[seat] += sum(worth[-k:])
            shut[seat] += k
    sides = teams(game.n)
    return (
        tuple(sum(low[s] for s in t) for t in sides),
        tuple(sum(high[s] for s in t) for t in sides),
        tuple(sum(board.tableaux[s].funding_cards() for s in t) for t in sides),
        tuple(sum(shut[s] for s in t) for t in sides),
    )


def _points(board: Board, seat: int, branch: Branch, mission: str) -> int:
    return card(mission).stars if condition_holds(board, seat, branch, mission) else 0


def decided_result(
    sides: tuple[tuple[int, ...], ...],
    low: tuple[int, ...],
    high: tuple[int, ...],
    funding: tuple[int, ...],
    shut: tuple[int, ...],
) -> Result | None:
    """§9.4's result if it is the same for every points each side may have (``low[i]`` to
    ``high[i]``; funding is public), else None. The sides that can reach the best lowest
    (points, funding) are the contenders: one alone wins whatever the closed faces; several win
    the same way only if none has a closed mission (then they tie on both and share)."""
    best = max(zip(low, funding))
    contenders = [i for i, key in enumerate(zip(high, funding)) if key >= best]
    exact = all(low[i] == high[i] for i in contenders)
    if len(contenders) > 1 and not exact:
        return None

    def points(i: int) -> str:
        if not shut[i]:
            return f"{side_name(sides[i])} {low[i]}"
        closed = f"{shut[i]} mission{'s' * (shut[i] > 1)} closed"
        between = f"{low[i]}" if low[i] == high[i] else f"{low[i]} to {high[i]}"
        return f"{side_name(sides[i])} {between} ({closed})"

    detail = ", ".join(points(i) for i in range(len(sides)))
    if len(contenders) > 1:
        listed = ", ".join(f"{side_name(sides[i])} {funding[i]}" for i in contenders)
        detail += f"; tied on points, funding cards: {listed}"
        return Result(None, SHARED, detail=detail,
                      shared=tuple(side_name(sides[i]) for i in contenders))
    (winner,) = contenders
    rivals = [i for i in range(len(sides)) if i != winner and high[i] >= low[winner]]
    if not rivals:
        return Result(side_name(sides[winner]), "score", detail=detail)
    tie = "tied" if all(high[i] == low[i] for i in [winner, *rivals]) else "may tie"
    listed = ", ".join(f"{side_name(sides[i])} {funding[i]}" for i in sorted([winner, *rivals]))
    detail += f"; {tie} on points, funding cards: {listed}"
    return Result(side_name(sides[winner]), TIE_BREAK, detail=detail)
