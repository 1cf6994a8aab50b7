"""Shady Agents over signed records: the rules that make its hidden elements real.

Theory of operation
-------------------
``ShadyAgentsRules`` is the game's ``GameRules`` (on the kit, ``engines.game``): a pure state
machine over records around the public game (``model.Game``). Nothing hidden is trusted to
anybody (DESIGN.md §5, rules §8):

``setup``   the role deal without recognition (``engines.protocols.role_deal``: ``key_share``,
            ``shuffle``, ``deal_tokens``): L cards have the plain face, C cards the marked one;
            odd n deals n+1 cards and the leftover is public once every seat has published its
            tokens. Then the beacon picks the first player.
``play``    ``round_one``: a Move (the receiver, and the tool sealed to the receiver's role-deal
            key share and kept under the giver's own, ``crypto.seal.SealedChoice``) or an
            Interrogation (``discard``: the discarded tool encrypted under the discarder's own
            key share, null for the first player's free one); a beacon ``Draw`` picks the card;
            ``answer`` by each eligible seat in order (a public structured claim, checked
            against the card's options at once); ``round_two``: every held tool, each sealed to
            its receiver, and ``both``: a proof that the seat's tools, given and discarded, add
            up to one Bullet and one Medkit under its own key (``elgamal.prove_plaintext``).
            Every tool and every discard is proven to be a Bullet or a Medkit when it is made,
            a gift to be the same tool for its receiver and its giver, and the seat's second
            tool to be the one it still held, so a garbage tool, a tool of a third kind, one
            sealed to another seat, replayed from another record, or a second Bullet is refused
            at its record (``InvalidProof``, naming the giver) and the receiver always reads
            what it got.
``reveal``  ``reveal`` by every seat that has not forfeited, in seat order: its key share secret
            (every role card opens, and so does every tool it gave, received or discarded). A
            false secret is rejected at once (``BadOpening``: the fraud interrupt makes the seat
            forfeit). Once all are in, the engine re-judges every answer on the full snapshot
            with the answerer's team (rules §7.4). A violation is attributed to the record that
            made it (``model.judge``).
``done``    ``Over``: the §7 score, and the violations as cheats (``table.settle`` makes the
            cheater's team lose; both teams cheating leaves no winner).

A forfeit before the deal is done ends the game with no winner; afterwards play stops and the
other seats still reveal. A forfeiter owes nothing (``engines.table``, "What a forfeiter owes"):
a tool opens once its giver or its receiver has opened its key share, while a tool between two
forfeiters, a forfeiter's discard and its role card stay closed. Its role is proven only when
the deck count leaves its card one face (``role_deal.roles_known``), never guessed; an answer is
judged on every kind its closed tools could have and convicts only if none excuses it; whatever
that leaves open is listed as not judged in the result, and no score is computed: the forfeit
decides.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spycraft.crypto import elgamal
from spycraft.crypto.elgamal import Ciphertext, ProvenCiphertext
from spycraft.crypto.encoding import encode
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.hashing import uniform_from
from spycraft.crypto.linear import LinearProof
from spycraft.crypto.records import Genesis, Record
from spycraft.crypto.seal import SealedChoice, open_sealed_choice, verify_sealed_choice
from spycraft.engines.errors import Illegal
from spycraft.engines.game import PLAY, REVEAL, SETUP, Played
from spycraft.engines.protocols import role_deal
from spycraft.engines.schema import Body
from spycraft.engines.shady_agents import ABOUT, scoring
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import (
    CORRUPT,
    LAW_ABIDING,
    TEAM_NAMES,
    TOOLS,
    Discard,
    Gift,
    Team,
    Tool,
)
from spycraft.engines.table import Draw, GameNeed, Result, Turn

GAME_NAME = "shady-agents"
TEAM_NAME = dict(TEAM_NAMES)
SIDES = (TEAM_NAME[LAW_ABIDING], TEAM_NAME[CORRUPT])
TOOL_POINTS = tuple(Point.hash_to(f"{GAME_NAME}/tool", tool) for tool in TOOLS)
"""The plaintexts of a sealed tool, in ``TOOLS`` order (Bullet, Medkit)."""
BOTH_TOOLS = TOOL_POINTS[0] + TOOL_POINTS[1]


def team_of_face(face: str) -> Team:
    """L cards carry the role deal's plain face, C cards the marked one."""
    return CORRUPT if face == role_deal.MARKED else LAW_ABIDING


@dataclass(frozen=True)
class State(role_deal.RoleDealState):
    """The rulebook's game, with the tools as sealed; the role deal, the act, the final reveal
    and the forfeits are the kit's fields (``RoleDealState``)."""

    game: M.Game
    table: bytes
    seals: tuple[SealedChoice, ...] = ()  # parallel to game.gifts
    discard_seals: tuple[ProvenCiphertext, ...] = ()  # parallel to game.discards
    # the final reveal
    gift_kinds: tuple[Tool | None, ...] = ()  # parallel to game.gifts, once opened
    discard_kinds: tuple[Tool | None, ...] = ()  # parallel to game.discards, once opened
    roles: tuple[Team | None, ...] = ()  # None: a forfeiter's card the deck count leaves open

    @property
    def n(self) -> int:
        return self.game.n


class ShadyAgentsRules(role_deal.RoleDealRules[State]):
    """The table's ``GameRules`` of Shady Agents; the moves come from the package's table,
    the final reveal and the forfeits from the kit (``engines.game.KeyShareRules``, over the
    role deal: ``role_deal.RoleDealRules``)."""

    about = ABOUT
    sides: tuple[str, ...] = SIDES

    def after(self, state: State) -> State:
        if state.act == SETUP and state.deal.done:
            face = state.deal.leftover()
            leftover = None if face is None else team_of_face(face)
            return replace(state, act=PLAY, game=replace(state.game, leftover=leftover))
        if state.act == PLAY and state.game.phase == M.END:
            return replace(state, act=REVEAL)
        return state

    def initial(self, genesis: Genesis) -> State:
        n = len(genesis.seats)
        deck = scoring.role_deck(n)
        deal = role_deal.new(
            n, deck.count(LAW_ABIDING), deck.count(CORRUPT), False,
            encode([f"spycraft/{GAME_NAME}/roles", genesis.table]),
        )
        return State(
            game=M.new_game(n, None),
            table=genesis.table,
            deal=deal,
            secrets=(None,) * n,
        )

    def play(self, state: State) -> GameNeed:
        if state.act == SETUP:
            turn = role_deal.turn(state.deal)
            assert turn is not None
            return turn
        game = state.game
        if game.phase == M.FIRST:
            return Draw("first_player")
        if game.phase == M.DRAW:
            return Draw("interrogation_card")
        if game.phase == M.ANSWERS:
            return Turn(game.next_answerer(), ("answer",))
        kind = "round_one" if game.phase == M.ROUND1 else "round_two"
        return Turn(game.turn_seat(), (kind,))

    def on_draw(self, state: State, seed: bytes) -> State:
        game = state.game
        if game.phase == M.FIRST:
            return replace(state, game=M.set_first(game, uniform_from(seed, 0, game.n)))
        value = uniform_from(seed, 0, len(game.remaining))
        return self.after(replace(state, game=M.draw_card(game, value)))

    def opened(self, state: State, seat: int, secret: Scalar) -> State:
        return _open_tools(state, seat, secret)

    def audit(self, state: State) -> State:
        return _audit(state)

    def natural(self, state: State) -> Result | None:
        return natural_result(state)

    def side_of(self, state: State, seat: int) -> str | None:
        team = state.roles[seat] if state.roles else None
        return None if team is None else TEAM_NAME[team]

    def hidden_side(self, state: State, seat: int) -> int:
        """Each team is half the table (the longer one at an odd count), as many as a majority
        of the seats but one: the longer team's votes alone are a claim (docs/rulings.md)."""
        return scoring.role_deck(state.game.n).count(CORRUPT)

def final_facts(state: State) -> scoring.FinalFacts | None:
    """Everything the final reveal opened, or None if something stayed closed."""
    roles = tuple(r for r in state.roles if r is not None)
    if len(roles) < state.n or None in state.gift_kinds or None in state.discard_kinds:
        return None
    gifts = tuple(
        Gift(g.giver, g.receiver, k) for g, k in zip(state.game.gifts, state.gift_kinds)
    )
    discards = tuple(
        Discard(d.seat, k) for d, k in zip(state.game.discards, state.discard_kinds)
    )
    return scoring.FinalFacts(state.n, roles, state.game.leftover, gifts, discards)


def natural_result(state: State) -> Result | None:
    """The §7 result of play, when play ran to the end and everything it needs opened: with
    a forfeit in the final reveal too, where the deck count proves the forfeiter's role, every
    gift it gave or received opened with its counterpart and nothing is left unjudged (the
    score needs no discard). ``table.settle`` then keeps it where the forfeiter's side lost it
    (``_fixed_by_play``): a losing team that stalls its last reveal, its teammate refusing to
    vote, makes a claim, and a claim must not turn a loss fixed by play into no winner (red
    team 26)."""
    if state.game.phase != M.END or (state.forfeits and state.unjudged):
        return None
    facts = final_facts(state)
    if facts is None:
        return None
    score = scoring.score(facts)
    law, corrupt = score.team_scores
    detail = (
        f"score Law-abiding {law}, Corrupt {corrupt}; "
        f"Medkits received {score.medkits[0]} and {score.medkits[1]}"
    )
    if score.winner is None:
        return Result(None, "draw", detail=detail)
    reason = "score" if score.reason == "score" else "tie broken by Medkits"
    return Result(TEAM_NAME[score.winner], reason, detail=detail)


# --- applying records ------------------------------------------------------------------------


def _key(state: State, seat: int) -> Point:
    """A seat's role-deal key share: tools are sealed to it, discards and copies kept under it."""
    return state.deal.key_shares[seat]


def spent(state: State, seat: int) -> list[Ciphertext]:
    """Every tool ``seat`` has given or discarded, each encrypted under its own key share."""
    gifts = [c.own for g, c in zip(state.game.gifts, state.seals) if g.giver == seat]
    return gifts + [c.ciphertext for d, c in zip(state.game.discards, state.discard_seals)
                    if d.seat == seat]


def _sealed_tool(state: State, record: Played, receiver: int, raw: object) -> SealedChoice:
    sealed = SealedChoice.decode(raw, len(TOOL_POINTS))
    verify_sealed_choice(sealed, TOOL_POINTS, _key(state, record.seat), _key(state, receiver),
                         record.context)
    return sealed


def apply_round_one(state: State, record: Played, body: Body) -> State:
    give, discard = body["give"], body["discard"]
    if give is not None and discard is not None:
        raise Illegal("a round-1 turn is a Move or an Interrogation, not both")
    if give is not None:
        receiver, raw = give
        game = M.move(state.game, record.seat, receiver, record.seq)
        sealed = _sealed_tool(state, record, receiver, raw)
        return replace(state, game=game, seals=state.seals + (sealed,))
    game = M.interrogate(state.game, record.seat, discard is not None, record.seq)
    if discard is None:
        return replace(state, game=game)
    proven = ProvenCiphertext.decode(discard, len(TOOL_POINTS))
    elgamal.verify_one_of(_key(state, record.seat), TOOL_POINTS, proven, record.context)
    return replace(state, game=game, discard_seals=state.discard_seals + (proven,))


def apply_answer(state: State, record: Record, body: Body) -> State:
    return replace(state, game=M.answer(state.game, record.seat, body["answer"], record.seq))


def apply_round_two(state: State, record: Played, body: Body) -> State:
    pairs = body["gifts"]
    receivers = tuple(receiver for receiver, _ in pairs)
    game = M.give_all(state.game, record.seat, receivers, record.seq)
    if list(receivers) != sorted(receivers):  # else the order would tell which is the Bullet
        raise Illegal("two tools given at once are listed by receiver seat")
    sealed = tuple(_sealed_tool(state, record, r, raw) for r, raw in pairs)
    state = replace(state, game=game, seals=state.seals + sealed)
    both = LinearProof.decode(body["both"], 1)
    elgamal.verify_plaintext(elgamal.ciphertext_sum(spent(state, record.seat)),
                             _key(state, record.seat), BOTH_TOOLS, both, record.context)
    return state


def _opened(ct: Ciphertext, secret: Scalar) -> Tool:
    """A proven tool ciphertext under the key of ``secret``: always a Bullet or a Medkit."""
    return TOOLS[TOOL_POINTS.index(elgamal.decrypt_with_secret(ct, secret))]


def _open_tools(state: State, seat: int, secret: Scalar) -> State:
    """What ``seat``'s key share opens: every tool it gave or received, and its discard."""
    gift_kinds = list(state.gift_kinds or (None,) * len(state.game.gifts))
    for i, (gift, sealed) in enumerate(zip(state.game.gifts, state.seals)):
        if gift.giver == seat:
            gift_kinds[i] = TOOLS[open_sealed_choice(sealed, secret, TOOL_POINTS, as_sender=True)]
        elif gift.receiver == seat:
            gift_kinds[i] = TOOLS[open_sealed_choice(sealed, secret, TOOL_POINTS)]
    discard_kinds = list(state.discard_kinds or (None,) * len(state.game.discards))
    for i, (discard, proven) in enumerate(zip(state.game.discards, state.discard_seals)):
        if discard.seat == seat:
            discard_kinds[i] = _opened(proven.ciphertext, secret)
    return replace(state, gift_kinds=tuple(gift_kinds), discard_kinds=tuple(discard_kinds))


def _roles(state: State) -> tuple[Team | None, ...]:
    """Each seat's team as the final reveal proves it (``role_deal.roles_known``): a forfeiter's
    own card is read from the deck count only when the count leaves it no choice."""
    faces = role_deal.roles_known(state.deal, state.secrets)
    return tuple(None if f is None else team_of_face(f) for f in faces[: state.n])


def _audit(state: State) -> State:
    """Rules §7.4 on everything the final reveal opened (``model.judge``): nothing is judged
    on a forfeiter's closed secrets, and what that leaves unjudged is said in the result."""
    state = replace(
        state,
        gift_kinds=state.gift_kinds or (None,) * len(state.game.gifts),
        discard_kinds=state.discard_kinds or (None,) * len(state.game.discards),
    )
    roles = _roles(state)
    found, unjudged = M.judge(state.game, state.gift_kinds, state.discard_kinds, roles)
    return replace(
        state, roles=roles, violations=state.violations + found, unjudged=unjudged
    )
