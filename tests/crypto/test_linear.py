"""Linear-relation proofs: complete, sound against every tampered part, simulatable, bound."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto import linear
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import GENERATOR, ORDER, Point, Scalar, point_sum
from spycraft.crypto.linear import Equation, LinearProof, Relation

Ctx = Callable[..., bytes]


def base(i: int) -> Point:
    return Point.hash_to("test/linear/base", i)


def relation_of(witnesses: tuple[Scalar, ...], shape: list[list[int]], name: str = "test"
                ) -> Relation:
    """A true relation: equation j uses the witnesses ``shape[j]`` over fresh bases."""
    equations = []
    for j, used in enumerate(shape):
        terms = tuple((i, base(10 * j + i)) for i in used)
        equations.append(Equation(point_sum(b * witnesses[i] for i, b in terms), terms))
    return Relation(name, len(witnesses), tuple(equations))


@st.composite
def relations(draw: st.DrawFn) -> tuple[Relation, tuple[Scalar, ...]]:
    m = draw(st.integers(1, 3))
    witnesses = tuple(Scalar.from_int(draw(st.integers(1, ORDER - 1))) for _ in range(m))
    shape = [sorted(draw(st.sets(st.integers(0, m - 1), min_size=1))) for _ in
             range(draw(st.integers(1, 3)))]
    missing = sorted(set(range(m)) - {i for used in shape for i in used})
    if missing:
        shape.append(missing)
    return relation_of(witnesses, shape), witnesses


@settings(max_examples=25, deadline=None)
@given(relations(), st.binary(min_size=1, max_size=40))
def test_an_honest_proof_of_any_relation_verifies_and_survives_cbor(
        case: tuple[Relation, tuple[Scalar, ...]], context: bytes) -> None:
    relation, witnesses = case
    proof = linear.prove(relation, witnesses, context, SeededEntropy(context))
    again = LinearProof.decode(decode(encode(proof.encode())), relation.witnesses)
    linear.verify(relation, again, context)


@settings(max_examples=25, deadline=None)
@given(relations(), st.integers(0, 10_000))
def test_a_proof_of_a_false_statement_never_verifies(
        case: tuple[Relation, tuple[Scalar, ...]], nudge: int) -> None:
    """The prover signs whatever it is given: with one public point moved, its proof fails."""
    relation, witnesses = case
    j = nudge % len(relation.equations)
    moved = relation.equations[j]
    false = replace(relation, equations=relation.equations[:j]
                    + (replace(moved, public=moved.public + GENERATOR),)
                    + relation.equations[j + 1:])
    proof = linear.prove(false, witnesses, b"ctx", SeededEntropy(nudge))
    with pytest.raises(ProofError):
        linear.verify(false, proof, b"ctx")


def _two_witnesses() -> tuple[Relation, tuple[Scalar, ...], LinearProof]:
    witnesses = (Scalar.from_int(5), Scalar.from_int(77))
    relation = relation_of(witnesses, [[0], [1], [0, 1]])
    return relation, witnesses, linear.prove(relation, witnesses, b"ctx", SeededEntropy(1))


def _tampered_relations(relation: Relation) -> list[Relation]:
    first, second, third = relation.equations
    swapped_bases = replace(third, terms=((0, third.terms[1][1]), (1, third.terms[0][1])))
    return [
        replace(relation, name="other"),
        replace(relation, equations=(replace(first, public=first.public + GENERATOR), second,
                                     third)),
        replace(relation, equations=(first, replace(second, terms=((1, base(99)),)), third)),
        replace(relation, equations=(first, second, swapped_bases)),
        replace(relation, equations=(second, first, third)),
        replace(relation, equations=(first, second)),
    ]


def test_every_tampered_part_of_the_statement_is_refused() -> None:
    relation, _, proof = _two_witnesses()
    for other in _tampered_relations(relation):
        with pytest.raises(ProofError):
            linear.verify(other, proof, b"ctx")


def test_every_tampered_part_of_the_proof_is_refused() -> None:
    relation, _, proof = _two_witnesses()
    one = Scalar.from_int(1)
    tampered = [
        replace(proof, challenge=proof.challenge + one),
        replace(proof, responses=(proof.responses[0] + one, proof.responses[1])),
        replace(proof, responses=(proof.responses[0], proof.responses[1] + one)),
        replace(proof, responses=proof.responses[::-1]),
        replace(proof, responses=proof.responses[:1]),
    ]
    for bad in tampered:
        with pytest.raises(ProofError):
            linear.verify(relation, bad, b"ctx")


def test_a_proof_is_bound_to_its_record_context(context: Ctx) -> None:
    witnesses = (Scalar.from_int(9),)
    relation = relation_of(witnesses, [[0]])
    proof = linear.prove(relation, witnesses, context(0, 3), SeededEntropy(2))
    linear.verify(relation, proof, context(0, 3))
    for other in (context(0, 4), context(1, 3), context(0, 3, "other kind")):
        with pytest.raises(ProofError):
            linear.verify(relation, proof, other)


@settings(max_examples=20, deadline=None)
@given(relations(), st.integers(1, ORDER - 1), st.lists(st.integers(0, ORDER - 1), min_size=3,
                                                          max_size=3))
def test_the_simulator_makes_accepting_transcripts_without_any_witness(
        case: tuple[Relation, tuple[Scalar, ...]], e: int, s: list[int]) -> None:
    """Zero knowledge: for any challenge and uniform responses, ``commitments_for`` gives the
    commitments of an accepting interactive transcript, knowing no witness. Non-interactively
    it is worthless: its challenge is not the hash of its commitments."""
    relation, _ = case
    challenge = Scalar.from_int(e)
    responses = tuple(Scalar.from_int(v) for v in s[: relation.witnesses])
    commitments = linear.commitments_for(relation, challenge, responses)
    for a, equation in zip(commitments, relation.equations):
        assert a + equation.public * challenge == point_sum(
            b * responses[i] for i, b in equation.terms)
    with pytest.raises(ProofError):
        linear.verify(relation, LinearProof(challenge, responses), b"ctx")


def test_an_honest_transcript_has_the_simulators_shape() -> None:
    """A real proof's implied commitments are the prover's nonce commitments: the verifier's
    recomputation and the hash agree, and responses are n + e*w for hidden uniform n."""
    relation, witnesses, proof = _two_witnesses()
    commitments = linear.commitments_for(relation, proof.challenge, proof.responses)
    nonces = [s - proof.challenge * w for s, w in zip(proof.responses, witnesses)]
    for a, equation in zip(commitments, relation.equations):
        assert a == point_sum(b * nonces[i] for i, b in equation.terms)


def test_two_proofs_from_one_entropy_stream_never_share_nonces(context: Ctx) -> None:
    """A seat resumed from a deterministic stream proves two statements: the hedged nonces
    differ, so the two answers do not give the witness away."""
    witnesses = (Scalar.from_int(123456789),)
    relation = relation_of(witnesses, [[0]])
    p1 = linear.prove(relation, witnesses, context(0, 3), SeededEntropy(5))
    p2 = linear.prove(relation, witnesses, context(0, 4), SeededEntropy(5))
    extracted = (p1.responses[0] - p2.responses[0]) * (p1.challenge - p2.challenge).inverse()
    assert extracted != witnesses[0]


@pytest.mark.parametrize("bad", [
    lambda: Relation("r", 0, (Equation(GENERATOR, ((0, GENERATOR),)),)),
    lambda: Relation("r", 1, ()),
    lambda: Relation("r", 1, (Equation(GENERATOR, ()),)),
    lambda: Relation("r", 1, (Equation(GENERATOR, ((1, GENERATOR),)),)),
    lambda: Relation("r", 1, (Equation(GENERATOR, ((0, GENERATOR), (0, base(1)))),)),
    lambda: Relation("r", 2, (Equation(GENERATOR, ((0, GENERATOR),)),)),
])
def test_a_relation_that_cannot_be_meant_is_a_programming_error(bad: Callable[[], Relation]
                                                                 ) -> None:
    with pytest.raises(ValueError):
        bad()


@pytest.mark.parametrize("value", [
    None, [], [bytes(32)], [bytes(32)] * 4, [bytes(31), bytes(32), bytes(32)],
    [b"\xff" * 32, bytes(32), bytes(32)],
])
def test_bytes_that_are_not_a_proof_are_malformed(value: object) -> None:
    with pytest.raises(MalformedValue):
        LinearProof.decode(value, 2)
