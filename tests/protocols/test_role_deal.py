"""The role deal on its own: every seat reads its role, the leftover card is public."""

from __future__ import annotations

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.group import Scalar
from spycraft.engines.game import Played, proof_context
from spycraft.engines.protocols import role_deal
from spycraft.engines.protocols.role_deal import MARKED, PLAIN, RoleDeal, RoleHand
from spycraft.engines.table import frozen

TABLE = b"t" * 16


def deal_all(
    seats: int, plain: int, marked: int, recognises: bool
) -> tuple[RoleDeal, list[RoleHand]]:
    deal = role_deal.new(seats, plain, marked, recognises, b"tags")
    hands = [RoleHand(i, Scalar.random(SeededEntropy(bytes([i]) * 32))) for i in range(seats)]
    seq = 0
    while (turn := role_deal.turn(deal)) is not None:
        seq += 1
        kind = turn.kinds[0]
        context = proof_context("test", TABLE, seq, turn.seat, kind)
        entropy = SeededEntropy(bytes([seq % 256]) * 32)
        body = frozen(role_deal.BUILD[kind](hands[turn.seat], deal, context, entropy))
        role_deal.SCHEMAS[kind].check(body, seats, kind)
        record = Played(TABLE, seq, b"", turn.seat, kind, body, "test")
        deal = role_deal.APPLY[kind](deal, record, body)
    return deal, hands


def test_an_odd_table_deals_one_card_more_and_the_leftover_is_public() -> None:
    deal, hands = deal_all(5, 3, 3, recognises=False)
    assert deal.done and deal.tags == ()
    roles = [hand.reading(deal) for hand in hands]
    faces = [r.role for r in roles if r is not None]
    assert len(faces) == 5
    leftover = deal.leftover()
    assert leftover in (PLAIN, MARKED)
    assert sorted(faces + [leftover]) == sorted([PLAIN] * 3 + [MARKED] * 3)


def test_marked_seats_recognise_each_other_and_nobody_else_learns_anything() -> None:
    deal, hands = deal_all(5, 3, 2, recognises=True)
    assert deal.leftover() is None
    marked = [h.seat for h in hands if (r := h.reading(deal)) is not None and r.role == MARKED]
    assert len(marked) == 2
    for hand in hands:
        expected = tuple(marked) if hand.seat in marked else ()
        assert hand.known_marked(deal) == expected


def test_nobody_reads_a_role_before_the_deal_and_a_deck_has_one_card_per_seat_or_one_more() -> None:
    deal = role_deal.new(5, 3, 2, False, b"tags")
    assert not any(deal.reads_role(s) for s in range(5))
    with pytest.raises(ValueError):
        role_deal.new(5, 3, 4, False, b"tags")
