"""Confusion's expert bot: a search over its own spies' types sampled from its notebook.

Theory of operation
-------------------
In Confusion a seat knows every type of the enemy's spies (it assigned them, §12) and none of
its own: what it knows of those is its notebook (§11), the candidates that every public answer
leaves. The expert reads its ``SeatView`` only (the public game, the notebook it derives from
the public log, the types it assigned) and searches one turn deep with the hidden part
*determinised*:

* **Determinisations.** It draws ``SAMPLES`` assignments of its own 13 spies' types (removed
  spies included), each a bijection onto the 13 types that gives every spy a type its
  observations allow (``model.Game.candidates``, §11's ``L``): spies in a random order, each
  given a random type still free that leaves the rest a perfect matching. The share of the
  determinisations in which a spy's type allows a line is the chance its announcement is
  answered "yes". In those where the spy is the Double Agent, the enemy answers as it likes: the
  expert assumes the answer that hurts it more. The draws are kept while its side's candidates
  stay the same (every decision of one turn reads the same ones).
* **The enemy's reply.** After each of its announcements (answered yes, or no) the expert
  predicts the enemy's reply from what it knows and the enemy does not: the enemy picks the
  move it believes best among the moves that matter (onto the briefcase, carrying or throwing
  it, capturing a spy), its belief being its own notebook page (the chance of a "yes" as the
  heuristic reckons it, with the heuristic's worth of a position), and the move then succeeds
  exactly when the enemy spy's true type allows it (a promoted spy always; the enemy's Double
  Agent only if the expert, its answerer, would rather say yes). So a spy is not left holding
  the briefcase where an enemy can truly take it, a threat only the enemy's notebook fears is
  ignored, and a briefcase the enemy can truly reach is guarded or taken first.
* **Scoring.** An announcement is worth ``p * after_yes + (1 - p) * after_no`` (each the worth
  of the position after the enemy's predicted reply, ``bots.position_value``) plus what the
  answer teaches (``TEACH * p * (1 - p)``). The search looks at the ``WIDTH * effort`` options
  the heuristic's one-ply score ranks first and at every move of a spy on the briefcase, onto it
  or capturing.

Answers for the enemy's Double Agent: "no" to a move that would help the enemy, "yes" otherwise
(which misleads its notebook). Free actions: it eliminates the enemy's Double Agent when that is
the enemy's last spy or holds the briefcase, else keeps it on the board as a puppet it answers
for; it removes its own spy once the notebook proves it is its Double Agent. Tokens as the
heuristic: ``reveal`` on its most uncertain spy next to the briefcase, ``double`` from the sixth
turn, ``swap`` when it wins at once.

Work per decision is bounded by the game (the samples, the options searched, the enemy moves
that matter), not by a clock, so a seeded expert game is deterministic; every random choice
(the draws, ties) comes from the bot's own entropy.
"""

from __future__ import annotations

from collections.abc import Sequence

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Decision
from spycraft.engines.bots import SeatBot
from spycraft.engines.confusion import notebook, worth
from spycraft.engines.confusion.board import (
    LETTERS,
    Side,
    Square,
    line,
    on_board,
    opp,
    path,
    side_of,
)
from spycraft.engines.confusion.model import Game
from spycraft.engines.confusion.movement import (
    MAX_PROMOTED,
    MAX_UNPROMOTED,
    TYPE_IDS,
    Announcement,
    Mode,
    movement_type,
)
from spycraft.engines.confusion.view import SeatView
from spycraft.engines.confusion.worth import WIN, after_yes, position_value, yes_share

SAMPLES = 12  # determinisations of the own types per decision (times effort)
WIDTH = 16  # announcements searched beyond the tactical ones (times effort)
TEACH = 6.0  # worth of an answer that splits the determinisations evenly
QUIET = 3.0  # what the enemy believes a quiet move is worth: a threat below it is not played
DA = TYPE_IDS.index("DA")
STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def expert_bot(entropy: Entropy, seat: int, effort: int = 1) -> ExpertBot:
    return ExpertBot(entropy, seat, effort)


def _augment(spy: int, masks: Sequence[int], owner: list[int], seen: list[int]) -> bool:
    free = masks[spy] & ~seen[0]
    t = 0
    while free:
        if free & 1:
            seen[0] |= 1 << t
            if owner[t] < 0 or _augment(owner[t], masks, owner, seen):
                owner[t] = spy
                return True
        free >>= 1
        t += 1
    return False


def matchable(masks: Sequence[int]) -> bool:
    """Whether each spy (``masks[i]``, its types as bits) can have its own type of its mask."""
    owner = [-1] * len(TYPE_IDS)
    return all(_augment(i, masks, owner, [0]) for i in range(len(masks)))


def determinise(masks: Sequence[int], entropy: Entropy) -> tuple[int, ...]:
    """One bijection of the spies onto the types within ``masks`` (which must allow one): spies
    in a random order, each a random type still free that leaves the others a perfect
    matching. Returns each spy's type index."""
    n = len(masks)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = below(entropy, i + 1)
        order[i], order[j] = order[j], order[i]
    chosen = [-1] * n
    used = 0
    for k, spy in enumerate(order):
        rest = order[k + 1:]
        choices = [t for t in range(len(TYPE_IDS)) if masks[spy] >> t & 1 and not used >> t & 1]
        while True:
            t = choices.pop(below(entropy, len(choices)))
            taken = used | 1 << t
            if matchable([masks[s] & ~taken for s in rest]):
                break
        chosen[spy] = t
        used |= 1 << t
    return tuple(chosen)


class ExpertBot(SeatBot[SeatView]):
    reads = SeatView

    def __init__(self, entropy: Entropy, seat: int, effort: int = 1) -> None:
        super().__init__(entropy, seat)
        self.effort = max(1, effort)
        self.side: Side = 0 if seat == 0 else 1
        self.enemy: Side = opp(self.side)
        self._drawn: tuple[tuple[int, ...], list[tuple[int, ...]]] | None = None
        self._enemy_page: tuple[int, dict[str, tuple[str, ...]]] | None = None

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        if len(decision.options) == 1:
            return 0
        if decision.kind == "announce":
            return self._best(self._announce(decision.options, view))
        if decision.kind == "answer":
            return self._best(self._answer(decision.options, view))
        if decision.kind == "free_action":
            return self._best(self._free(decision.options, view))
        return self._best(self._token(decision.options, view))

    def _best(self, scores: list[float]) -> int:
        top = max(scores)
        ties = [i for i, s in enumerate(scores) if s >= top - 1e-9]
        return ties[0] if len(ties) == 1 else ties[below(self.entropy, len(ties))]

    # --- beliefs -------------------------------------------------------------------------------

    def samples(self, g: Game) -> list[tuple[int, ...]]:
        """Determinisations of the own spies' types (type index by letter), kept while the
        side's candidates are unchanged."""
        masks = g.candidates[self.side]
        if self._drawn is None or self._drawn[0] != masks:
            drawn = [determinise(masks, self.entropy) for _ in range(SAMPLES * self.effort)]
            self._drawn = (masks, drawn)
        return self._drawn[1]

    def enemy_candidates(self, g: Game) -> dict[str, tuple[str, ...]]:
        """The enemy's own notebook page (§11's ``C``), what it believes of its spies."""
        if self._enemy_page is None or self._enemy_page[0] != len(g.log):
            page = notebook.page(g.log, self.enemy)
            self._enemy_page = (len(g.log), dict(page.candidates))
        return self._enemy_page[1]

    # --- the enemy's reply ---------------------------------------------------------------------

    def reply(self, g: Game, view: SeatView, spies: dict[str, Square], bc: Square,
              promoted: tuple[str, ...]) -> float:
        """The worth for this seat of the position after the enemy's predicted reply."""
        me, enemy = self.side, self.enemy
        base = position_value(spies, bc, me)
        if abs(base) >= WIN:
            return base
        believed = self.enemy_candidates(g)
        occupied = {where: spy for spy, where in spies.items()}
        now = position_value(spies, bc, enemy)
        targets = [bc] + [w for s, w in spies.items() if side_of(s) == me and w != bc]
        best, chosen = QUIET, None
        for spy, origin in spies.items():
            if side_of(spy) != enemy:
                continue
            limit = MAX_PROMOTED if spy in promoted else MAX_UNPROMOTED
            for mode, to in self._threats(origin, bc, targets, occupied, limit, enemy):
                a = Announcement(spy, mode, to)
                move = line(enemy, origin, to)
                p = 1.0 if spy in promoted else yes_share(believed[spy], move)
                after, moved = after_yes(spies, bc, enemy, a)
                gain = position_value(after, moved, enemy) - now
                score = p * gain + 8.0 * p * (1.0 - p)
                if score > best:
                    best, chosen = score, (spy, move, after, moved)
        if chosen is None:
            return base
        spy, move, after, moved = chosen
        result = position_value(after, moved, me)
        if spy in promoted:
            return result
        truth = view.type_of(spy)
        if truth == "DA":
            return max(base, result)  # its answerer says no to a move that hurts it
        return result if truth is not None and movement_type(truth).allows(move) else base

    @staticmethod
    def _threats(origin: Square, bc: Square, targets: list[Square],
                 occupied: dict[Square, str], limit: int, side: Side
                 ) -> list[tuple[Mode, Square]]:
        """The announceable moves of a spy of ``side`` on ``origin`` that matter: from the
        briefcase, each carry and throw; otherwise onto the briefcase or capturing."""
        found: list[tuple[Mode, Square]] = []
        if origin == bc:
            for dx, dy in STEPS:
                for k in range(1, limit + 1):
                    x, y = origin.x + k * dx, origin.y + k * dy
                    if not on_board(x, y):
                        break
                    to = Square(x, y)
                    there = occupied.get(to)
                    if there is None or side_of(there) != side:
                        found.append(("carry", to))
                    found.append(("throw", to))
                    if there is not None:
                        break
            return found
        for to in targets:
            dx, dy = to.x - origin.x, to.y - origin.y
            k = max(abs(dx), abs(dy))
            if k == 0 or k > limit or not (dx == 0 or dy == 0 or abs(dx) == abs(dy)):
                continue
            there = occupied.get(to)
            if there is not None and side_of(there) == side:
                continue
            if all(w not in occupied and w != bc for w in path(origin, to)):
                found.append(("move", to))
        return found

    # --- decisions -----------------------------------------------------------------------------

    def _announce(self, options: Sequence[Announcement], view: SeatView) -> list[float]:
        g, me = view.game, self.side
        spies, bc, promoted = dict(g.board.spies), g.board.briefcase, g.board.promoted
        drawn = self.samples(g)
        now = position_value(spies, bc, me)
        quick: list[float] = []
        chances: list[tuple[float, float]] = []  # (share allowing, share Double Agent)
        afters = []
        for a in options:
            after, moved = after_yes(spies, bc, me, a)
            afters.append((after, moved))
            if a.spy in promoted:
                chances.append((1.0, 0.0))
                quick.append(position_value(after, moved, me))
                continue
            move = line(me, spies[a.spy], a.to)
            index = LETTERS.index(a.spy[2])
            allow = sum(1 for d in drawn if d[index] != DA
                        and movement_type(TYPE_IDS[d[index]]).allows(move))
            da = sum(1 for d in drawn if d[index] == DA)
            share, doubt = allow / len(drawn), da / len(drawn)
            chances.append((share, doubt))
            p = share + doubt / 2
            quick.append(p * position_value(after, moved, me) + (1 - p) * now)
        ranked = sorted(range(len(options)), key=lambda i: -quick[i])
        searched = set(ranked[: WIDTH * self.effort])
        occupied = {where for where in spies.values()}
        for i, a in enumerate(options):
            if a.mode != "move" or a.to == bc or a.to in occupied:
                searched.add(i)
        if_no = self.reply(g, view, spies, bc, promoted)
        scores = []
        for i, a in enumerate(options):
            share, doubt = chances[i]
            if i not in searched:
                scores.append(-2 * WIN)
                continue
            after, moved = afters[i]
            if_yes = self.reply(g, view, after, moved, promoted)
            p = share + (doubt if if_yes < if_no else 0.0)
            scores.append(p * if_yes + (1 - p) * if_no + TEACH * share * (1 - share))
        return scores

    def _answer(self, options: Sequence[bool], view: SeatView) -> list[float]:
        g, me = view.game, self.side
        assert g.pending is not None
        spies, bc = dict(g.board.spies), g.board.briefcase
        after, moved = after_yes(spies, bc, g.turn, g.pending)
        helps = position_value(after, moved, me) < position_value(spies, bc, me)
        return [0.0 if bool(option) == (not helps) else 1.0 for option in options]

    def _free(self, options: Sequence[tuple[str, str | None]], view: SeatView) -> list[float]:
        g = view.game
        scores = []
        for action, spy in options:
            if action == "eliminate_opp_da" and spy is not None:
                last = len(g.spies_on_board(self.enemy)) == 1
                scores.append(3.0 if last or g.board.position(spy) == g.board.briefcase else 0.5)
            elif action == "eliminate_own" and spy is not None:
                index = LETTERS.index(spy[2])
                scores.append(2.0 if g.candidates[self.side][index] == 1 << DA else 0.0)
            elif action == "none":
                scores.append(1.0)
            else:
                scores.append(0.0)
        return scores

    def _token(self, options: Sequence[tuple[str, tuple[str, ...]]], view: SeatView
               ) -> list[float]:
        g, me = view.game, self.side
        return worth.token_scores(
            g, options, me, lambda spy: g.candidates[me][LETTERS.index(spy[2])].bit_count())

