"""The card list (rules §2): composition, balance, properties, effects and conditions."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from spycraft.crypto.errors import MalformedRecord
from spycraft.engines.spynet.cards import (
    BRANCHES,
    CARDS,
    DECK,
    SITUATIONS,
    Branch,
    Condition,
    Kind,
    Verb,
    card,
)
from spycraft.engines.spynet.errors import UnknownCard


def of_kind(kind: Kind) -> list[str]:
    return [c.id for c in CARDS.values() if c.kind is kind]


def test_there_are_84_cards_76_in_the_deck_and_8_situations() -> None:
    assert len(CARDS) == 84
    assert len(DECK) == 76 and len(set(DECK)) == 76
    assert SITUATIONS == tuple(f"S0{i}" for i in range(1, 9))
    assert set(DECK) | set(SITUATIONS) == set(CARDS) and not set(DECK) & set(SITUATIONS)


def test_the_seed_components_34_agents_32_missions_10_funding_8_situations() -> None:
    agents = [c for c in CARDS.values() if c.is_agent]
    assert len(agents) == 34
    assert len(of_kind(Kind.MISSION)) == 32
    assert len(of_kind(Kind.FUNDING)) == 10
    assert len(of_kind(Kind.SITUATION)) == 8


@pytest.mark.parametrize("kind", [Kind.AGENT, Kind.SPECIAL_AGENT, Kind.MISSION])
def test_single_branch_counts_per_branch_match_the_composition_table(kind: Kind) -> None:
    expected = {Kind.AGENT: 5, Kind.SPECIAL_AGENT: 2, Kind.MISSION: 6}[kind]
    single = Counter(
        c.branches[0] for c in CARDS.values() if c.kind is kind and len(c.branches) == 1
    )
    assert single == {b: expected for b in BRANCHES}


def test_several_branch_cards_match_the_composition_table() -> None:
    assert len(of_kind(Kind.MERCENARY)) == 6
    assert all(card(c).branches == BRANCHES for c in of_kind(Kind.MERCENARY))
    missions = [card(c) for c in of_kind(Kind.MISSION)]
    assert sum(len(m.branches) == 2 for m in missions) == 6
    assert [m.id for m in missions if m.purple] == ["M31", "M32"]
    # each pair of branches exactly once
    pairs = {frozenset(m.branches) for m in missions if len(m.branches) == 2}
    assert len(pairs) == 6


def test_plain_agents_have_powers_1_to_5_in_every_branch() -> None:
    for branch in BRANCHES:
        powers = sorted(card(c).power for c in of_kind(Kind.AGENT) if card(c).branches == (branch,))
        assert powers == [1, 2, 3, 4, 5]


def test_balance_printed_power_18_per_branch_plus_12_in_mercenaries_funding_19() -> None:
    for branch in BRANCHES:
        printed = sum(
            c.power
            for c in CARDS.values()
            if c.kind in (Kind.AGENT, Kind.SPECIAL_AGENT) and c.branches == (branch,)
        )
        assert printed == 18
    assert sum(card(c).power for c in of_kind(Kind.MERCENARY)) == 12
    assert sum(card(c).value for c in of_kind(Kind.FUNDING)) == 19
    assert sorted(card(c).value for c in of_kind(Kind.FUNDING)) == [1] * 4 + [2] * 3 + [3] * 3


def test_balance_stars_12_per_branch_12_on_pairs_5_on_purple_65_in_all() -> None:
    missions = [card(c) for c in of_kind(Kind.MISSION)]
    for branch in BRANCHES:
        assert sum(m.stars for m in missions if m.branches == (branch,)) == 12
    assert sum(m.stars for m in missions if len(m.branches) == 2) == 12
    assert sum(m.stars for m in missions if m.purple) == 5
    assert sum(m.stars for m in missions) == 65


def test_no_agent_but_the_mercenaries_has_more_than_one_branch() -> None:
    for c in CARDS.values():
        if c.is_agent and c.kind is not Kind.MERCENARY:
            assert len(c.branches) == 1, c.id


def test_funding_and_situations_belong_to_no_branch_and_carry_only_their_own_field() -> None:
    for c in CARDS.values():
        if c.kind in (Kind.FUNDING, Kind.SITUATION):
            assert c.branches == () and c.colours == ()
        assert (c.power > 0) == c.is_agent
        assert (c.value > 0) == (c.kind is Kind.FUNDING)
        assert (c.stars > 0) == (c.kind is Kind.MISSION)
        assert (c.effect is not None) == (c.kind is Kind.SPECIAL_AGENT)
        assert bool(c.text) == (c.kind is Kind.SITUATION)


def test_colours_are_the_branch_colours_and_purple_for_all_four() -> None:
    assert {b: b.colour for b in Branch} == {
        Branch.INT: "yellow",
        Branch.OPS: "red",
        Branch.TEC: "green",
        Branch.SIG: "blue",
    }
    assert card("A29").colours == ("purple",)
    assert card("M32").colours == ("purple",)
    assert card("M27").colours == ("yellow", "blue")
    assert card("A27").colours == ("blue",)


def test_mission_conditions_are_those_of_the_card_list() -> None:
    conditions = {c.id: c.condition for c in CARDS.values() if c.condition is not None}
    assert conditions == {
        "M05": Condition.DOM,
        "M11": Condition.DOM,
        "M17": Condition.DOM,
        "M23": Condition.DOM,
        "M06": Condition.NET,
        "M12": Condition.DEEP,
        "M18": Condition.FUNDS,
        "M24": Condition.CELL,
        **{f"M{i}": Condition.PAIR for i in range(25, 31)},
        "M32": Condition.GRAND,
    }


def test_special_effects_are_those_of_the_card_list() -> None:
    def row(card_id: str) -> tuple[object, ...]:
        e = card(card_id).effect
        assert e is not None
        return (
            e.verb,
            e.special_discard,
            e.max_power,
            e.threshold_from_discard,
            e.stack,
            e.full,
            e.bare,
        )

    assert row("A21") == (Verb.REMOVE, False, 3, False, None, 0, 0)
    assert row("A22") == (Verb.FLIP, True, None, True, None, 0, 0)
    assert row("A23") == (Verb.REMOVE, True, None, True, None, 0, 0)
    assert row("A24") == (Verb.ADDITIONAL_AGENTS, False, None, False, None, 1, 0)
    assert row("A25") == row("A24")
    assert row("A26") == (Verb.FLIP, False, 3, False, None, 0, 0)
    assert row("A27") == (Verb.REMOVE, False, None, False, Branch.SIG, 0, 0)
    assert row("A28") == (Verb.ADDITIONAL_AGENTS, False, None, False, None, 0, 2)
    targeted = sorted(c.id for c in CARDS.values() if c.effect is not None and c.effect.targeted)
    assert targeted == ["A21", "A22", "A23", "A26", "A27"]


def test_names_follow_the_card_list() -> None:
    assert card("A05").name == "Spymaster"
    assert card("A27").name == "Codebreaker"
    assert card("M32").name == "Grand Game"
    assert card("F10").name == "Swiss Account"
    assert card("S08").name == "Deep Infiltration"
    assert Branch.SIG.full_name == "Signals"


def test_cards_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        card("A01").power = 9  # type: ignore[misc]
    with pytest.raises(TypeError):
        CARDS["X01"] = card("A01")  # type: ignore[index]


@pytest.mark.parametrize("bad", ["A35", "a01", "", 7, None, ["A01"]])
def test_an_unknown_id_is_a_malformed_value_the_engine_attributes(bad: object) -> None:
    with pytest.raises(UnknownCard) as caught:
        card(bad)  # type: ignore[arg-type]
    error = caught.value.attribute(2, 41)
    assert isinstance(error, MalformedRecord)
    assert (error.seat, error.seq) == (2, 41)


# The rows of §2.3 as printed in the rulebook (effect text shortened to "effect"), pasted here so
# that the data in cards.py is checked against an independent transcription, row by row.
CARD_LIST = """
A01 | agent | Walk-in | INT | 1 | –
A02 | agent | Analyst | INT | 2 | –
A03 | agent | Case Officer | INT | 3 | –
A04 | agent | Resident | INT | 4 | –
A05 | agent | Spymaster | INT | 5 | –
A06 | agent | Lookout | OPS | 1 | –
A07 | agent | Driver | OPS | 2 | –
A08 | agent | Infiltrator | OPS | 3 | –
A09 | agent | Commando | OPS | 4 | –
A10 | agent | Ghost | OPS | 5 | –
A11 | agent | Technician | TEC | 1 | –
A12 | agent | Locksmith | TEC | 2 | –
A13 | agent | Forger | TEC | 3 | –
A14 | agent | Engineer | TEC | 4 | –
A15 | agent | Inventor | TEC | 5 | –
A16 | agent | Radio Operator | SIG | 1 | –
A17 | agent | Cipher Clerk | SIG | 2 | –
A18 | agent | Interceptor | SIG | 3 | –
A19 | agent | Cryptanalyst | SIG | 4 | –
A20 | agent | Signals Chief | SIG | 5 | –
A21 | special agent | Mole Hunter | INT | 2 | effect
A22 | special agent | Honey Trap | INT | 1 | effect
A23 | special agent | Wetwork Team | OPS | 1 | effect
A24 | special agent | Station Chief | OPS | 2 | effect
A25 | special agent | Quartermaster | TEC | 2 | effect
A26 | special agent | Blackmailer | TEC | 1 | effect
A27 | special agent | Codebreaker | SIG | 2 | effect
A28 | special agent | Network Builder | SIG | 1 | effect
A29 | mercenary | Freelancer | all four | 1 | –
A30 | mercenary | Smuggler | all four | 1 | –
A31 | mercenary | Fixer | all four | 2 | –
A32 | mercenary | Soldier of Fortune | all four | 2 | –
A33 | mercenary | Contractor | all four | 3 | –
A34 | mercenary | Ronin | all four | 3 | –
M01 | mission | Dead Drop | INT | 1 | –
M02 | mission | Informant | INT | 1 | –
M03 | mission | Asset Recruitment | INT | 2 | –
M04 | mission | Debriefing | INT | 2 | –
M05 | mission | Intelligence Supremacy | INT | 3 | dom
M06 | mission | Web of Informants | INT | 3 | net
M07 | mission | Extraction | OPS | 1 | –
M08 | mission | Surveillance | OPS | 1 | –
M09 | mission | Safe Cracking | OPS | 2 | –
M10 | mission | Border Crossing | OPS | 2 | –
M11 | mission | Operations Supremacy | OPS | 3 | dom
M12 | mission | Deep Cover | OPS | 3 | deep
M13 | mission | Microfilm | TEC | 1 | –
M14 | mission | Bug Sweep | TEC | 1 | –
M15 | mission | Prototype Theft | TEC | 2 | –
M16 | mission | Satellite Photos | TEC | 2 | –
M17 | mission | Technology Supremacy | TEC | 3 | dom
M18 | mission | Off the Books | TEC | 3 | funds
M19 | mission | Wiretap | SIG | 1 | –
M20 | mission | Numbers Station | SIG | 1 | –
M21 | mission | Codebook | SIG | 2 | –
M22 | mission | Intercept | SIG | 2 | –
M23 | mission | Signals Supremacy | SIG | 3 | dom
M24 | mission | Traffic Analysis | SIG | 3 | cell
M25 | mission | Defection | INT, OPS | 2 | pair
M26 | mission | Cipher Machine | INT, TEC | 2 | pair
M27 | mission | Counterespionage | INT, SIG | 2 | pair
M28 | mission | Sabotage | OPS, TEC | 2 | pair
M29 | mission | Ambush | OPS, SIG | 2 | pair
M30 | mission | Satellite Link | TEC, SIG | 2 | pair
M31 | mission | Safehouse | all four | 1 | –
M32 | mission | Grand Game | all four | 4 | grand
F01 | funding | Petty Cash | – | 1 | –
F02 | funding | Petty Cash | – | 1 | –
F03 | funding | Petty Cash | – | 1 | –
F04 | funding | Petty Cash | – | 1 | –
F05 | funding | Slush Fund | – | 2 | –
F06 | funding | Slush Fund | – | 2 | –
F07 | funding | Slush Fund | – | 2 | –
F08 | funding | Swiss Account | – | 3 | –
F09 | funding | Swiss Account | – | 3 | –
F10 | funding | Swiss Account | – | 3 | –
"""

KIND_OF_ROW = {
    "agent": Kind.AGENT,
    "special agent": Kind.SPECIAL_AGENT,
    "mercenary": Kind.MERCENARY,
    "mission": Kind.MISSION,
    "funding": Kind.FUNDING,
}


@pytest.mark.parametrize("row", CARD_LIST.strip().splitlines(), ids=lambda r: r[:3])
def test_every_card_is_the_row_of_the_card_list(row: str) -> None:
    card_id, kind, name, branches, number, extra = (part.strip() for part in row.split("|"))
    c = card(card_id)
    assert (c.kind, c.name) == (KIND_OF_ROW[kind], name)
    if branches == "all four":
        assert c.branches == BRANCHES
    elif branches == "–":
        assert c.branches == ()
    else:
        assert c.branches == tuple(Branch(b) for b in branches.split(", "))
    assert int(number) == c.power + c.value + c.stars
    if extra == "effect":
        assert c.effect is not None and c.condition is None
    elif extra == "–":
        assert c.effect is None and c.condition is None
    else:
        assert c.condition == Condition(extra) and c.effect is None


def test_the_card_list_has_a_row_for_every_deck_card_in_order() -> None:
    assert tuple(row[:3] for row in CARD_LIST.strip().splitlines()) == DECK


def test_the_situations_are_those_of_the_card_list() -> None:
    assert [card(s).name for s in SITUATIONS] == [
        "Technology Race",
        "Austerity",
        "Open Secrets",
        "Cold Standoff",
        "Mercenary Market",
        "Hiring Spree",
        "Paper Trail",
        "Deep Infiltration",
    ]
    assert all(card(s).kind is Kind.SITUATION and card(s).text for s in SITUATIONS)
