"""Tableaux written the way the rules' worked examples write them (§14), and random boards."""

from __future__ import annotations

from hypothesis import strategies as st

from spycraft.engines.spynet.cards import BRANCHES, DECK, SITUATIONS, Branch, Kind, card
from spycraft.engines.spynet.scoring import Board, StackedAgent, Tableau


def _by_branch(text: str) -> dict[Branch, list[str]]:
    """``"INT: a b | SIG: c"`` -> {INT: [a, b], SIG: [c]}."""
    parts: dict[Branch, list[str]] = {}
    for part in filter(None, (p.strip() for p in text.split("|"))):
        branch, _, cards = part.partition(":")
        parts[Branch(branch.strip())] = cards.split()
    return parts


def tableau(stacks: str = "", missions: str = "") -> Tableau:
    """Stacks bottom to top, funding after ``+``: ``tableau("INT: A05+F01 A29 | OPS: A07")``."""
    agents = _by_branch(stacks)
    piles = _by_branch(missions)

    def stacked(word: str) -> StackedAgent:
        agent, *funding = word.split("+")
        return StackedAgent(agent, tuple(funding))

    return Tableau(
        stacks=tuple(tuple(stacked(w) for w in agents.get(b, [])) for b in BRANCHES),
        missions=tuple(tuple(piles.get(b, [])) for b in BRANCHES),
    )


def board(*tableaux: Tableau, situation: str | None = None) -> Board:
    return Board(tuple(tableaux), situation)


def cards_on(board: Board) -> list[str]:
    """Every card in play on the board (agents, their funding, missions)."""
    found: list[str] = []
    for t in board.tableaux:
        for agent in t.agents():
            found += [agent.card, *agent.funding]
        for pile in t.missions:
            found += pile
    return found


situations = st.sampled_from((None, *SITUATIONS))


@st.composite
def boards(draw: st.DrawFn, players: int | None = None) -> Board:
    """A table some game could reach: distinct deck cards, each agent in one of its branches,
    funding attached to agents, missions in branches they belong to.

    One byte per card says where it goes (seat or nowhere, branch, funding attached), so a board
    costs a few draws and still shrinks well.
    """
    n = draw(st.sampled_from((2, 3, 4))) if players is None else players
    order = draw(st.permutations(DECK))
    places = draw(st.lists(st.integers(0, 255), min_size=len(DECK), max_size=len(DECK)))
    funding = [c for c in order if card(c).kind is Kind.FUNDING]
    stacks: list[list[list[StackedAgent]]] = [[[] for _ in BRANCHES] for _ in range(n)]
    piles: list[list[list[str]]] = [[[] for _ in BRANCHES] for _ in range(n)]
    for c, place in zip(order, places, strict=True):
        printed = card(c)
        seat, rest = place % (n + 1), place // (n + 1)
        if printed.kind is Kind.FUNDING or seat == n:
            continue  # funding is attached below; seat n: in the deck, a pile, a hand, discarded
        branch = BRANCHES.index(printed.branches[rest % len(printed.branches)])
        if printed.is_agent:
            k = min(rest // 4 % 3, len(funding))
            attached, funding = tuple(funding[:k]), funding[k:]
            stacks[seat][branch].append(StackedAgent(c, attached))
        else:
            piles[seat][branch].append(c)
    tableaux = tuple(
        Tableau(tuple(map(tuple, stacks[s])), tuple(map(tuple, piles[s]))) for s in range(n)
    )
    return Board(tableaux, draw(situations))
