"""What a seat infers about the others' teams (``engines.shady_agents.belief``), from its view.

The worked examples of rules §10 say what each interrogation teaches the seats that gave or
received the tools it asks about; the belief must reach exactly those conclusions, as proofs.
It must also read nothing it may not know: changing a kind the seat does not know changes
nothing, and the evidence of round 2 moves it the way the rules' incentives say.
"""

from __future__ import annotations

from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents.belief import belief
from spycraft.engines.shady_agents.components import BULLET, CORRUPT, MEDKIT, Tool
from spycraft.engines.shady_agents.view import Knowledge
from tests.shady_agents.script import Table, roles

B, M_ = BULLET, MEDKIT
SURE = 1e-3  # a proof leaves at most this much doubt (the belief keeps a tiny floor)


def knowledge(t: Table, seat: int) -> Knowledge:
    """What ``seat`` knows at this point of the scripted table (its own kinds only)."""
    game = t.game
    given = tuple(
        (g.seq, g.receiver, t.gift_kinds[i]) for i, g in enumerate(game.gifts) if g.giver == seat
    )
    received: tuple[tuple[int, int, Tool | None], ...] = tuple(
        (g.seq, g.giver, t.gift_kinds[i])
        for i, g in enumerate(game.gifts)
        if g.receiver == seat
    )
    discarded = next(
        (t.discard_kinds[i] for i, d in enumerate(game.discards) if d.seat == seat), None
    )
    return Knowledge(seat, t.roles[seat], given, received, discarded)


def example_a_turn_4(discard: Tool = M_) -> Table:
    t = Table(4, 2, roles(4, {0, 2}))
    t.ask(2, None, "Q33")
    t.move(3, 0, B)
    t.move(0, 2, M_)
    t.ask(1, discard, "Q36")
    t.answer(2, 0)
    t.answer(0, cards.NONE)
    return t


def test_example_a_seat_3_learns_that_seat_0_is_law_abiding() -> None:
    chance = belief(example_a_turn_4().game, knowledge(example_a_turn_4(), 3))
    assert chance[3] == 1.0
    assert chance[0] < SURE  # seat 3 (Corrupt) shot seat 0, whose "none" was true


def test_example_a_seat_0_learns_that_seat_2_is_its_partner() -> None:
    t = example_a_turn_4()
    chance = belief(t.game, knowledge(t, 0))
    assert chance[2] > 1 - SURE  # seat 0 healed seat 2, whose "0" was true
    assert chance[1] < SURE and chance[3] < SURE  # one friend in four players


def test_a_kind_the_seat_does_not_know_changes_nothing_it_believes() -> None:
    medkit, bullet = example_a_turn_4(discard=M_), example_a_turn_4(discard=B)
    for seat in (0, 2, 3):  # everybody but the discarder
        assert belief(medkit.game, knowledge(medkit, seat)) == belief(
            bullet.game, knowledge(bullet, seat)
        )


def test_example_b_each_giver_reads_the_lie_of_its_receiver() -> None:
    t = Table(5, 0, roles(5, {1, 2, 4}), leftover=CORRUPT)
    t.move(0, 3, M_)
    t.move(1, 0, B)
    t.ask(2, B, "Q01")
    t.answer(3, cards.NO)
    t.answer(0, cards.YES)
    seat_0 = belief(t.game, knowledge(t, 0))
    assert seat_0[3] > 1 - SURE  # its Corrupt partner: the short team has two players
    assert max(seat_0[1], seat_0[2], seat_0[4]) < SURE
    seat_1 = belief(t.game, knowledge(t, 1))
    assert seat_1[0] < SURE  # seat 1 shot seat 0, whose "yes" was a lie


def test_example_c_ten_players_the_healers_read_the_liars() -> None:
    t = Table(10, 7, roles(10, {0, 3, 4, 7, 8}))
    t.ask(7, None, "Q33")
    t.move(8, 9, M_)
    t.move(9, 0, B)
    t.ask(0, B, "Q36")
    t.answer(9, cards.NONE)
    assert belief(t.game, knowledge(t, 8))[9] < SURE
    t.move(1, 8, B)
    t.move(2, 1, M_)
    t.move(3, 4, M_)
    t.ask(4, B, "Q02")
    for seat in (8, 9, 0, 1):
        t.answer(seat, cards.YES)
    assert belief(t.game, knowledge(t, 8))[9] < SURE
    assert belief(t.game, knowledge(t, 2))[1] > 1 - SURE  # seat 2 healed its partner, a liar


def round_two_table() -> Table:
    """Six players, f = 0, every round-1 turn a Move in a ring, no interrogation."""
    t = Table(6, 0, roles(6, {0, 1, 2}))
    for seat in range(6):
        t.move(seat, (seat + 1) % 6, B if seat % 2 == 0 else M_)
    return t


def test_nothing_known_is_the_team_sizes() -> None:
    t = round_two_table()
    chance = belief(t.game, knowledge(t, 0))
    assert chance[0] == 1.0
    assert all(abs(c - 2 / 5) < 1e-9 for c in chance[1:])


def test_a_round_two_medkit_says_its_giver_is_a_friend_and_a_bullet_an_enemy() -> None:
    medkit, bullet = round_two_table(), round_two_table()
    medkit.give(5, (2, M_))
    bullet.give(5, (2, B))
    assert belief(medkit.game, knowledge(medkit, 2))[5] > 2 / 5
    assert belief(bullet.game, knowledge(bullet, 2))[5] < 2 / 5


def test_a_gift_between_two_others_links_their_teams() -> None:
    t = round_two_table()
    t.give(5, (3, B))  # seat 5 gave a Medkit in round 1 (to seat 0): it holds a Bullet
    chance = belief(t.game, knowledge(t, 0))  # seat 0 knows what seat 5 gave it
    # a Bullet is aimed at an enemy: seats 5 and 3 are more likely on different teams, so
    # exactly one of them is more likely seat 0's friend than the other seats
    assert abs(chance[5] - chance[3]) < 1e-9 and chance[5] > 2 / 5 > chance[1]
