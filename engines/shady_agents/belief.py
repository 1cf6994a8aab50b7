"""What one Shady Agents seat can infer about the others' teams, from its own view only.

Theory of operation
-------------------
``belief(game, me)`` is, for every seat, the probability that it is on ``me``'s team. It is a
posterior over every way to choose ``me``'s friends among the other seats (the team sizes are
public: §2), from two kinds of public evidence, weighed with what ``me`` privately knows (its
team and the kinds it gave, received and discarded):

1. **Answers.** The rules force a Law-abiding answerer to pick in T and a Corrupt one outside it
   (§5), and T depends on kinds of round-1 tools, most of them unknown to ``me``. So the answers
   are weighed jointly over the unknown kinds (``_worlds``): in each world (one kind for every
   hidden tool that touches an answerer) an answer has likelihood 1/|T| from a Law-abiding seat
   and 1/|O \\ T| from a Corrupt one, next to nothing (``FLOOR``) for the other side (never
   zero, so that a seat whose answers nothing explains blinds nothing else). A tool ``me``
   gave or received has its kind fixed, which is why the seats ``me`` dealt with are the ones
   it reads best. Hidden kinds are not uniform: they follow how a sensible seat
   plays (the heuristic bot's own plan, ``bots``): the first ``BLIND_MOVERS`` seats of round 1
   know nothing yet and give a Bullet (``BLIND_BULLET``), a later Move is aimed and less
   predictable (``AIMED_BULLET``), and a discard is mostly a Medkit (``DISCARDED_MEDKIT``), given
   blind it helps an enemy more often than a friend. Above ``MAX_JOINT`` hidden kinds (large
   tables), each answerer is weighed over its own kinds alone, which is cheaper and loses only
   the links between answerers.
2. **Aims.** A tool given alone in round 2 is aimed: a Medkit at a seat its giver takes for a
   friend, a Bullet at one it takes for an enemy. So a gift says its giver and receiver are on
   the same team (Medkit) or not (Bullet), with odds ``AIM``. The kind is known when ``me`` is the
   receiver, or when the giver's round-1 Move went to ``me`` (it holds the other kind); otherwise
   it is predicted like the round-1 kinds above (a seat that gave a Bullet holds its Medkit).
   The first player's two tools go out together, one of each, and say nothing this way.

Everything here is a pure function of the public ``Game`` and one seat's ``Knowledge``: it never
reads another seat's secret, and a kind ``None`` in its knowledge (a tool it cannot know) is
simply weighed as hidden.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import combinations

from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import (
    BULLET,
    LAW_ABIDING,
    MEDKIT,
    TOOLS,
    Discard,
    Gift,
    Tool,
)
from spycraft.engines.shady_agents.scoring import team_sizes
from spycraft.engines.shady_agents.view import Knowledge

BLIND_MOVERS = 2  # round-1 positions (the first player's included) that give a Bullet blind
BLIND_BULLET = 0.95  # chance that a Move by one of them is a Bullet
AIMED_BULLET = 0.65  # chance that a later round-1 Move is a Bullet
DISCARDED_MEDKIT = 0.8  # chance that a discard is a Medkit
AIM = 2.0  # odds that a round-2 tool given alone went where its kind says (same team or not)
MAX_JOINT = 7  # hidden kinds weighed jointly; beyond that, each answerer over its own alone
FLOOR = 1e-6  # likelihood of an answer its team could not give: a proof, yet never a zero

Said = tuple[M.Interrogation, int, cards.Answer]  # (interrogation, answerer, answer)


def belief(game: M.Game, me: Knowledge, joint: int = MAX_JOINT) -> tuple[float, ...]:
    """The probability that each seat is on ``me``'s team (1.0 for ``me`` itself); ``joint``:
    at most this many hidden kinds weighed jointly (``MAX_JOINT``)."""
    n = game.n
    if me.team is None:
        return tuple(0.5 for _ in range(n))
    friends = friend_count(game, me)
    chances = [0.0] * n
    total = 0.0
    for group, weight in posterior(game, me, joint):
        total += weight
        for seat in group:
            chances[seat] += weight
    if total > 0:
        chances = [c / total for c in chances]
    else:  # nothing this model can explain (a seat played outside the rules it knows)
        chances = [friends / (n - 1)] * n
    chances[me.seat] = 1.0
    return tuple(chances)


def friend_count(game: M.Game, me: Knowledge) -> int:
    """How many friends ``me`` has among the other seats (the team sizes are public)."""
    law, corrupt = team_sizes(game.n, game.leftover)
    return (law if me.team == LAW_ABIDING else corrupt) - 1


def posterior(game: M.Game, me: Knowledge,
              joint: int = MAX_JOINT) -> list[tuple[frozenset[int], float]]:
    """Every set of friends ``me`` can have, with its weight (not normalised): the answers and
    the aims, as ``belief`` weighs them (``me`` must know its team)."""
    others = [s for s in range(game.n) if s != me.seat]
    groups = [frozenset(g) for g in combinations(others, friend_count(game, me))]
    weights = _answer_weights(game, me, groups, joint)
    aims = aims_of(game, me)
    weighed = []
    for group, weight in zip(groups, weights):
        mine = group | {me.seat}
        for giver, receiver, medkit in aims:
            same = (giver in mine) == (receiver in mine)
            weight *= medkit * (AIM if same else 1.0) + (1 - medkit) * (1.0 if same else AIM)
        weighed.append((group, weight))
    return weighed


def kind_of_move(game: M.Game, giver: int) -> float:
    """The chance that ``giver``'s round-1 Move was a Bullet, as a sensible seat plays."""
    return BLIND_BULLET if (giver - game.first) % game.n < BLIND_MOVERS else AIMED_BULLET


def aims_of(game: M.Game, me: Knowledge) -> list[tuple[int, int, float]]:
    """Every tool given alone in round 2 by another seat: (giver, receiver, chance it is a
    Medkit), the chance 0 or 1 where ``me`` knows the kind."""
    got = {seq: kind for seq, _, kind in me.received}
    round_one = {g.giver: g for g in game.round_one_gifts()}
    gave_me = {g.giver: got.get(g.seq) for g in round_one.values() if g.receiver == me.seat}
    aims = []
    for gift in game.gifts:
        if gift.round != 2 or gift.giver == me.seat:
            continue
        if sum(1 for g in game.gifts if g.seq == gift.seq) > 1:  # the first player's pair
            continue
        known: Tool | None = got.get(gift.seq) if gift.receiver == me.seat else None
        if known is None and gave_me.get(gift.giver) is not None:
            known = BULLET if gave_me[gift.giver] == MEDKIT else MEDKIT
        if known is not None:
            medkit = 1.0 if known == MEDKIT else 0.0
        elif gift.giver in round_one:
            medkit = kind_of_move(game, gift.giver)  # it holds the other kind
        else:
            medkit = 1 - DISCARDED_MEDKIT
        aims.append((gift.giver, gift.receiver, medkit))
    return aims


def answers_by(game: M.Game, seat: int) -> list[Said]:
    """Every answer ``seat`` gave, oldest first."""
    return [
        (asking, who, answer)
        for asking in game.interrogations
        if asking.snapshot is not None
        for who, answer, _ in asking.answers
        if who == seat
    ]


def likelihoods(
    game: M.Game, me: Knowledge, seat: int, said: list[Said]
) -> tuple[float, float]:
    """P(``said``, answers of ``seat`` | Law-abiding), P(... | Corrupt), the kinds ``me`` does
    not know weighed as a sensible seat plays them."""
    as_law = as_corrupt = 0.0
    for prior, law, corrupt in _worlds(game, me, said):
        as_law += prior * law.get(seat, 1.0)
        as_corrupt += prior * corrupt.get(seat, 1.0)
    return as_law, as_corrupt


def _answer_weights(game: M.Game, me: Knowledge, groups: list[frozenset[int]],
                    joint: int = MAX_JOINT) -> list[float]:
    """P(every answer | the friends of ``me`` are ``group``), for each group."""
    said = [
        item for seat in range(game.n) if seat != me.seat for item in answers_by(game, seat)
    ]
    if not said:
        return [1.0] * len(groups)
    answerers = sorted({seat for _, seat, _ in said})
    honest = me.team == LAW_ABIDING  # my friends are the seats that must tell the truth

    def weigh(law: dict[int, float], corrupt: dict[int, float], group: frozenset[int]) -> float:
        friendly, hostile = (law, corrupt) if honest else (corrupt, law)
        weight = 1.0
        for seat in answerers:
            weight *= friendly[seat] if seat in group else hostile[seat]
        return weight

    gifts, discards = _hidden(me, said)
    if len(gifts) + len(discards) > joint:
        law, corrupt = {}, {}
        for seat in answerers:
            mine = [item for item in said if item[1] == seat]
            law[seat], corrupt[seat] = likelihoods(game, me, seat, mine)
        return [weigh(law, corrupt, group) for group in groups]
    weights = [0.0] * len(groups)
    for prior, law, corrupt in _worlds(game, me, said):
        for index, group in enumerate(groups):
            weights[index] += prior * weigh(law, corrupt, group)
    return weights


def _hidden(me: Knowledge, said: list[Said]) -> tuple[list[int], list[int]]:
    """The round-1 gifts and discards (indices in the latest snapshot) whose kind ``me`` does
    not know and some answer may depend on: those touching an answerer."""
    answerers = {seat for _, seat, _ in said}
    known = _latest(me, said)
    gifts = [
        i
        for i, g in enumerate(known.gifts)
        if g.kind is None and (g.giver in answerers or g.receiver in answerers)
    ]
    discards = [
        i for i, d in enumerate(known.discards) if d.kind is None and d.seat in answerers
    ]
    return gifts, discards


def _latest(me: Knowledge, said: list[Said]) -> cards.Snapshot:
    """The latest snapshot among the answers, with the kinds ``me`` knows (every earlier
    snapshot is a prefix of it)."""
    snapshots = [asking.snapshot for asking, _, _ in said if asking.snapshot is not None]
    latest = max(snapshots, key=lambda s: len(s.gifts) + len(s.discards))
    return me.known_snapshot(latest)


def _worlds(
    game: M.Game, me: Knowledge, said: list[Said]
) -> Iterator[tuple[float, dict[int, float], dict[int, float]]]:
    """Each assignment of the hidden kinds: (its prior, P(answers | Law-abiding) per answerer,
    P(answers | Corrupt) per answerer)."""
    if not said:
        return
    known = _latest(me, said)
    open_gifts, open_discards = _hidden(me, said)
    slots = len(open_gifts) + len(open_discards)
    for bits in range(1 << slots):
        kinds = [TOOLS[(bits >> j) & 1] for j in range(slots)]
        gifts: list[Gift] = list(known.gifts)
        discards: list[Discard] = list(known.discards)
        prior = 1.0
        for i, kind in zip(open_gifts, kinds):
            gifts[i] = replace(gifts[i], kind=kind)
            bullet = kind_of_move(game, gifts[i].giver)
            prior *= bullet if kind == BULLET else 1 - bullet
        for i, kind in zip(open_discards, kinds[len(open_gifts):]):
            discards[i] = replace(discards[i], kind=kind)
            prior *= DISCARDED_MEDKIT if kind == MEDKIT else 1 - DISCARDED_MEDKIT
        law: dict[int, float] = {}
        corrupt: dict[int, float] = {}
        for asking, seat, answer in said:
            public = asking.snapshot
            assert public is not None
            snapshot = replace(
                public,
                gifts=tuple(gifts[: len(public.gifts)]),
                discards=tuple(discards[: len(public.discards)]),
            )
            truth = cards.true_set(asking.drawn, snapshot, seat)
            lies = [o for o in cards.options(asking.drawn, snapshot, seat) if o not in truth]
            as_law = 1 / len(truth) if answer in truth else FLOOR
            as_corrupt = 1 / len(lies) if answer not in truth and lies else FLOOR
            law[seat] = law.get(seat, 1.0) * as_law
            corrupt[seat] = corrupt.get(seat, 1.0) * as_corrupt
        yield prior, law, corrupt
