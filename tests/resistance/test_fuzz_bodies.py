"""A seat that signs any body at all, at any point of a Resistance game, gets a typed error.

Never a crash: the engine must answer every record a peer can sign with a RecordError naming
the seat and seq, or accept it (when the random body happens to be legal).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import RecordError
from spycraft.engines import registry
from spycraft.engines.local import LocalTable, new_local_table

DEFINITION = registry.load("resistance")


def honest_game(seed: int) -> tuple[LocalTable, list[Any]]:
    local = new_local_table(DEFINITION, DEFINITION.options(plot=True), 5, SeededEntropy(seed))
    agents = [DEFINITION.bots["random"](SeededEntropy(seed).child(f"b{i}"), i) for i in range(5)]
    return local, agents


def played(seed: int) -> list[Any]:
    local, agents = honest_game(seed)
    local.run(agents)
    return local.records


RECORDS = {seed: played(seed) for seed in (1, 2)}

leaves = (
    st.none() | st.booleans() | st.integers(-3, 300) | st.binary(max_size=40) | st.text(max_size=6)
)
values = st.recursive(
    leaves,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=12,
)


def mutate(body: Any, data: st.DataObject) -> Any:
    if isinstance(body, dict) and body and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(body)))
        return {**body, key: data.draw(values)}
    return data.draw(values)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_signed_body_gets_a_typed_error_or_is_legal(data: st.DataObject) -> None:
    seed = data.draw(st.sampled_from(sorted(RECORDS)))
    records = RECORDS[seed]
    position = data.draw(st.integers(0, len(records) - 1))
    local, _ = honest_game(seed)
    state = local.state
    for signed in records[:position]:
        state = local.table.apply(state, signed)
    honest = records[position]
    turn = local.table.expect(state)
    assert turn is not None
    original = honest.record.body
    body = mutate(dict(original) if isinstance(original, dict) else original, data)
    forged = local.seats[turn.seat].sign(state, honest.record.kind, body)
    try:
        local.table.apply(state, forged)
    except RecordError as error:
        assert (error.seat, error.seq) == (turn.seat, forged.seq)
