"""``spycraft audit`` on a real Spies & Lies transcript (selfplay, seed 7), honest and tampered.

The transcript is built in-process exactly as ``spycraft selfplay spies-and-lies --seed 7`` builds
it (cli/offline.py): one ``SeededEntropy(7)``, the table from its ``table`` child, the heuristic
bots from its ``bot/<i>`` children. Tampering is done on the bytes: a record's payload is edited
and either keeps its old signature (an outsider editing the file) or is re-signed with the seat's
own key (a seat lying about its own record), the key derived from the seed the way
``new_local_table`` derives it. The audit must then fail with the right error type, naming the
seat and the seq; whatever the bytes, it must never crash and never say VALID for a changed file.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import cbor2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.cli.main import main as cli_main
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import (
    BadOpening,
    BadSignature,
    ChainBroken,
    IllegalAction,
    InvalidProof,
    MalformedRecord,
    OutOfTurn,
    RecordError,
)
from spycraft.crypto.group import Point
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import (
    COSE_SIGN1_TAG,
    PROTECTED_SIGN1,
    SignedRecord,
    link_hash,
    parse_record,
    sign_record,
)
from spycraft.crypto.transcript import Transcript
from spycraft.engines import registry
from spycraft.engines.audit import AuditReport, Unreadable, audit
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.table import FRAUD

SEED = 7
GAME = "spies-and-lies"
FIELDS = ("table", "seq", "prev", "seat", "kind", "body")


# --- the transcript ----------------------------------------------------------------------------


def selfplay(seed: int = SEED) -> tuple[LocalTable, list[Any]]:
    """A table and its bots, seeded as ``spycraft selfplay spies-and-lies --seed <seed>`` does."""
    definition = registry.load(GAME)
    options = definition.options()
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, options, 2, entropy.child("table"))
    agents = [definition.bots["heuristic"](entropy.child(f"bot/{i}"), i) for i in range(2)]
    return local, agents


def seat_identity(seat: int, seed: int = SEED) -> Identity:
    """A seat's signing key, derived from the seed the way ``new_local_table`` derives it."""
    return Identity(SeededEntropy(seed).child("table").child(f"identity/{seat}").take(32))


def _selfplay_transcript(seed: int = SEED) -> Transcript:
    local, agents = selfplay(seed)
    state = local.run(agents)
    assert state.result is not None
    return local.transcript


SEED_7 = _selfplay_transcript()  # built once, at collection: the strategies need its length
SEED_7_BYTES = SEED_7.to_bytes()


@pytest.fixture(scope="module")
def game() -> Transcript:
    return SEED_7


@pytest.fixture(scope="module")
def data() -> bytes:
    return SEED_7_BYTES


def picks(t: Transcript) -> dict[str, int]:
    """Records to tamper with: early (a beacon, a deployment), middle (a guess, a reveal), last."""
    n = len(t.records)
    kinds = {r.seq: r.record.kind for r in t.records}
    middle_guess = next(s for s in range(n // 2, n) if kinds[s] == "guess")
    middle_reveal = next(s for s in range(n // 2, n) if kinds[s] == "reveal")
    return {
        "early beacon": 2,
        "early deploy": next(s for s in range(1, n) if kinds[s] == "deploy"),
        "middle guess": middle_guess,
        "middle reveal": middle_reveal,
        "last": n,
    }


PICKS = picks(SEED_7)


def test_the_seed_7_transcript_has_the_records_the_tests_tamper_with(game: Transcript) -> None:
    kinds = {r.seq: r.record.kind for r in game.records}
    assert [kinds[PICKS[k]] for k in PICKS] == ["beacon", "deploy", "guess", "reveal", "result"]
    assert {game.records[PICKS[k] - 1].seat for k in PICKS} == {0, 1}
    for seat in (0, 1):
        assert seat_identity(seat).public == game.genesis.genesis.seats[seat].identity


# --- helpers -----------------------------------------------------------------------------------


def with_records(t: Transcript, raws: list[bytes]) -> bytes:
    return t.genesis.raw + b"".join(raws)


def raws(t: Transcript) -> list[bytes]:
    return [r.raw for r in t.records]


def edited(record_cbor: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    out = dict(record_cbor)
    out[field] = value
    return out


def keep_signature(signed: SignedRecord, payload_map: dict[str, Any]) -> bytes:
    """The record with a new payload and its old signature: what an outsider can do to a file."""
    item = decode(signed.raw)
    signature = item.value[3]
    return encode(
        cbor2.CBORTag(COSE_SIGN1_TAG, [PROTECTED_SIGN1, {}, encode(payload_map), signature])
    )


def resign(signed: SignedRecord, field: str, value: Any, key_of: int | None = None) -> bytes:
    """The record edited and signed by a seat's own key (the record's seat unless ``key_of``)."""
    record = replace(signed.record, **{field: value})
    key = seat_identity(signed.seat if key_of is None else key_of)
    return sign_record(record, key).raw


def new_value(signed: SignedRecord, field: str) -> Any:
    """A well-formed but different value for one field (so parsing passes and the engine judges)."""
    r = signed.record
    if field == "table":
        return bytes(b ^ 0xFF for b in r.table)
    if field == "seq":
        return r.seq + 1
    if field == "prev":
        return bytes([r.prev[0] ^ 1]) + r.prev[1:]
    if field == "seat":
        return 1 - r.seat
    if field == "kind":
        return "guess" if r.kind != "guess" else "reveal"
    return lied_body(r.kind, r.body)


def lied_body(kind: str, body: Any) -> Any:
    """A body the engine rejects at this very record, per kind."""
    if kind == "beacon":
        return {"preimage": bytes([body["preimage"][0] ^ 1]) + body["preimage"][1:]}
    if kind == "deploy":
        return {"missions": list(body["missions"][:3])}
    if kind == "guess":
        return {"rank": 11}
    if kind == "reveal":
        return {"rank": body["rank"] % 10 + 1, "nonce": body["nonce"]}
    if kind == "result":
        winner = "Blue" if body["winner"] != "Blue" else "Red"
        return {
            **body,
            "winner": winner,
            "forfeits": list(body["forfeits"]),
            "evidence": list(body["evidence"]),
        }
    return {}


BODY_ERRORS = {
    "beacon": IllegalAction,  # the pre-image does not continue the seat's hash chain
    "deploy": MalformedRecord,  # three missions instead of four
    "guess": IllegalAction,  # a guess outside 1..10
    "reveal": BadOpening,  # a rank that does not open the commitment
    "result": IllegalAction,  # not the result the engine computed
}


def invalid(data: bytes) -> AuditReport:
    report = audit(data)
    assert not report.valid
    assert not report.describe().startswith("VALID")
    return report


def failure(data: bytes) -> RecordError:
    report = invalid(data)
    assert report.error is not None, report.describe()
    assert report.describe().startswith("INVALID")
    assert str(report.error) in report.describe()
    return report.error


def cli(path: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli_main(["audit", str(path)])
    return code, capsys.readouterr().out


# --- the honest transcript ---------------------------------------------------------------------


def test_selfplay_seed_7_writes_this_transcript_and_the_cli_audits_it_valid(
    data: bytes, tmp_path: Any
) -> None:
    out = tmp_path / "seed7.cbor"
    run = [sys.executable, "-m", "spycraft"]
    made = subprocess.run(
        [*run, "selfplay", GAME, "--seed", str(SEED), "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    assert out.read_bytes() == data  # the in-process build is the CLI's, byte for byte
    checked = subprocess.run(
        [*run, "audit", str(out)], capture_output=True, text=True, timeout=60, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith(f"VALID {GAME}: ")
    assert "result: winner: " in checked.stdout or "result: no winner" in checked.stdout


def test_the_honest_transcript_replays_to_its_result(game: Transcript, data: bytes) -> None:
    report = audit(data)
    assert report.valid and report.error is None and not report.frauds
    assert report.records == len(game.records)
    assert report.result is not None
    assert report.result.to_cbor() == {
        **game.records[-1].record.body,
        "forfeits": [],
        "evidence": [],
    }


# --- one field edited, old signature kept (an outsider) ----------------------------------------


def outsider_edit(game: Transcript, pick: str, field: str) -> tuple[SignedRecord, Any, RecordError]:
    """Edit one field of a record, keep its old signature, and audit: (record, new value, error)."""
    seq = PICKS[pick]
    signed = game.records[seq - 1]
    value = new_value(signed, field)
    records = raws(game)
    records[seq - 1] = keep_signature(signed, edited(signed.record.to_cbor(), field, value))
    return signed, value, failure(with_records(game, records))


@pytest.mark.parametrize("pick", list(PICKS))
@pytest.mark.parametrize("field", ["seat", "kind", "body"])
def test_an_edit_that_keeps_the_old_signature_is_a_bad_signature(
    game: Transcript, field: str, pick: str
) -> None:
    seq = PICKS[pick]
    signed, value, error = outsider_edit(game, pick, field)
    assert type(error) is BadSignature
    claimed_seat = value if field == "seat" else signed.seat
    assert (error.seat, error.seq) == (claimed_seat, seq)
    assert f"bad signature by seat {claimed_seat}, record {seq}" in str(error)


@pytest.mark.parametrize("pick", list(PICKS))
@pytest.mark.parametrize("field", ["seq", "prev"])
def test_an_edit_of_a_chain_field_that_keeps_the_old_signature_is_a_bad_signature(
    game: Transcript, field: str, pick: str
) -> None:
    # Table.apply checks the signature before the chain, so a record the seat never signed is
    # reported as not signed by it, never as a lie of that seat about the chain.
    signed, value, error = outsider_edit(game, pick, field)
    assert type(error) is BadSignature
    assert error.seat == signed.seat
    assert error.seq == (value if field == "seq" else PICKS[pick])


@pytest.mark.parametrize("pick", list(PICKS))
def test_an_edit_of_the_table_id_names_another_table(game: Transcript, pick: str) -> None:
    signed, _, error = outsider_edit(game, pick, "table")
    assert type(error) is ChainBroken
    assert (error.seat, error.seq) == (signed.seat, PICKS[pick])
    assert "another table" in error.what


# --- one field edited and re-signed by the seat itself (a seat lying about its own record) ------


@pytest.mark.parametrize("pick", list(PICKS))
@pytest.mark.parametrize("field", FIELDS)
def test_a_seat_that_re_signs_an_edited_record_is_caught_with_the_right_error(
    game: Transcript, field: str, pick: str
) -> None:
    seq = PICKS[pick]
    signed = game.records[seq - 1]
    value = new_value(signed, field)
    records = raws(game)
    records[seq - 1] = resign(signed, field, value)
    error = failure(with_records(game, records))
    kind = signed.record.kind
    expected: dict[str, tuple[type[RecordError], str]] = {
        "table": (ChainBroken, "record belongs to another table"),
        "seq": (ChainBroken, f"expected seq {seq}, got {seq + 1}"),
        "prev": (ChainBroken, "prev does not match the previous record"),
        # signed with the key of the seat it names no more
        "seat": (BadSignature, "does not verify under the seat's key"),
        "kind": (
            OutOfTurn,
            "the game is over: only the result remains"
            if kind == "result"
            else f"expected seat {signed.seat} to write {kind}, got {value}",
        ),
        "body": (BODY_ERRORS[kind], ""),
    }
    error_type, words = expected[field]
    assert type(error) is error_type, str(error)
    assert words in error.what
    assert error.seat == (value if field == "seat" else signed.seat)
    assert error.seq == (value if field == "seq" else seq)


def test_a_seat_that_signs_a_record_in_the_other_seats_name_and_turn_is_out_of_turn(
    game: Transcript,
) -> None:
    seq = PICKS["middle reveal"]
    signed = game.records[seq - 1]
    other = 1 - signed.seat
    records = raws(game)
    records[seq - 1] = resign(signed, "seat", other, key_of=other)
    error = failure(with_records(game, records))
    assert type(error) is OutOfTurn
    assert (error.seat, error.seq) == (other, seq)
    assert f"expected seat {signed.seat} to write reveal" in error.what


def test_a_lie_in_a_commitment_is_caught_at_the_first_record_that_proves_it(
        game: Transcript) -> None:
    seq = PICKS["early deploy"]
    signed = game.records[seq - 1]
    # commitments to nothing: well-formed, so accepted now; shown false when the tokens are
    # opened, whose proofs say what each card holds
    missions = [[Point.hash_to("test/nothing", [i, part]).encode() for part in (0, 1)]
                for i in range(4)]
    records = raws(game)
    records[seq - 1] = resign(signed, "body", {"missions": missions})
    # The later records still chain on the honest record's hash; re-sign them so only the lie
    # differs (each by its own seat, as a cheating table would have written them).
    transcript = _rechain(game, records, start=seq)
    error = failure(transcript)
    assert type(error) is InvalidProof
    assert error.seat == signed.seat
    tokens = next(
        r.seq
        for r in game.records
        if r.seq > seq and r.record.kind == "tokens" and r.seat == signed.seat
    )
    assert error.seq == tokens


def _rechain(game: Transcript, records: list[bytes], start: int) -> bytes:
    """Re-sign every record after ``start`` so its prev is the link of the record before it."""
    out = records[:start]
    for raw in records[start:]:
        r = parse_record(raw)
        fixed = replace(r.record, prev=link_hash(out[-1]))
        out.append(sign_record(fixed, seat_identity(r.seat)).raw)
    return with_records(game, out)


# --- whole records moved, cut, spliced, repeated -----------------------------------------------


def test_two_swapped_records_break_the_chain_at_the_first_of_them(game: Transcript) -> None:
    records = raws(game)
    i = PICKS["middle guess"]  # records i and i+1 (seq), list positions i-1 and i
    records[i - 1], records[i] = records[i], records[i - 1]
    error = failure(with_records(game, records))
    moved = game.records[i]  # seq i+1, now at position i
    assert type(error) is ChainBroken
    assert (error.seat, error.seq) == (moved.seat, i + 1)
    assert f"expected seq {i}, got {i + 1}" in error.what


def test_a_transcript_without_its_last_record_ends_before_the_result(game: Transcript) -> None:
    report = invalid(with_records(game, raws(game)[:-1]))
    assert report.error is None and report.result is None
    assert report.records == len(game.records) - 1
    assert "ends before the result" in report.describe()
    assert report.describe().startswith("INVALID")


def test_a_transcript_with_the_genesis_alone_ends_before_the_result(game: Transcript) -> None:
    report = invalid(game.genesis.raw)
    assert report.records == 0 and "ends before the result" in report.describe()


@pytest.mark.parametrize("where", ["early", "middle", "last"])
def test_a_transcript_cut_inside_a_record_names_the_item(
    game: Transcript, where: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    position = {"early": 1, "middle": len(game.records) // 2, "last": len(game.records)}[where]
    before = with_records(game, raws(game)[: position - 1])
    cut = before + game.records[position - 1].raw[:-7]
    error = failure(cut)
    assert type(error) is MalformedRecord
    assert error.seq == position
    assert f"item {position} at byte {len(before)} is cut or damaged" in error.what
    path = tmp_path / "cut.cbor"
    path.write_bytes(cut)
    code, out = cli(path, capsys)
    assert code == 1
    assert f"record {position}" in out and "cut or damaged" in out


def test_a_transcript_cut_inside_the_genesis_is_unreadable(
    game: Transcript, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = game.genesis.raw[:-5]
    with pytest.raises(Unreadable, match="item 0"):
        audit(cut)
    path = tmp_path / "cut.cbor"
    path.write_bytes(cut)
    code, out = cli(path, capsys)
    assert code == 2 and out.startswith("UNREADABLE")


def test_a_record_from_another_table_spliced_in_is_named(game: Transcript) -> None:
    other, agents = selfplay(seed=8)
    other.run(agents)
    seq = PICKS["middle guess"]
    foreign = other.records[seq - 1]
    records = raws(game)
    records[seq - 1] = foreign.raw
    error = failure(with_records(game, records))
    assert type(error) is ChainBroken
    assert (error.seat, error.seq) == (foreign.seat, seq)
    assert "another table" in error.what


@pytest.mark.parametrize("pick", ["early beacon", "middle reveal", "last"])
def test_a_duplicated_record_is_named(game: Transcript, pick: str) -> None:
    seq = PICKS[pick]
    records = raws(game)
    records.insert(seq, records[seq - 1])
    error = failure(with_records(game, records))
    assert type(error) is ChainBroken
    assert (error.seat, error.seq) == (game.records[seq - 1].seat, seq)
    assert f"expected seq {seq + 1}, got {seq}" in error.what


def test_a_record_dropped_from_the_middle_breaks_the_chain(game: Transcript) -> None:
    seq = PICKS["middle reveal"]
    records = raws(game)
    del records[seq - 1]
    error = failure(with_records(game, records))
    assert type(error) is ChainBroken
    assert (error.seat, error.seq) == (game.records[seq].seat, seq + 1)
    assert f"expected seq {seq}, got {seq + 1}" in error.what


def test_a_record_appended_after_the_result_is_refused(game: Transcript) -> None:
    last = game.records[-1]
    extra = sign_record(
        replace(last.record, seq=last.seq + 1, prev=last.link, kind="guess", body={"rank": 1}),
        seat_identity(last.seat),
    )
    error = failure(with_records(game, [*raws(game), extra.raw]))
    assert type(error) is OutOfTurn
    assert (error.seat, error.seq) == (last.seat, last.seq + 1)
    assert "the table is closed" in error.what


@pytest.mark.parametrize("seat", [0, 1])
def test_an_edited_genesis_signature_names_the_seat(game: Transcript, seat: int) -> None:
    item = decode(game.genesis.raw)
    protected, unprotected, payload, signatures = item.value
    signatures = [list(s) for s in signatures]
    sig = signatures[seat][2]
    signatures[seat][2] = sig[:10] + bytes([sig[10] ^ 0x40]) + sig[11:]
    genesis = encode(cbor2.CBORTag(98, [protected, unprotected, payload, signatures]))
    error = failure(genesis + b"".join(raws(game)))
    assert type(error) is BadSignature
    assert (error.seat, error.seq) == (seat, 0)
    assert f"bad signature by seat {seat}, record 0" in str(error)
    assert "genesis signature does not verify" in error.what


def test_an_edited_genesis_payload_fails_every_signature_from_seat_0(game: Transcript) -> None:
    item = decode(game.genesis.raw)
    protected, unprotected, payload, signatures = item.value
    g = decode(payload)
    seats = [dict(s) for s in g["seats"]]
    seats[1]["name"] = "mallory"
    payload = encode({**g, "seats": seats})
    genesis = encode(
        cbor2.CBORTag(98, [protected, unprotected, payload, list(map(list, signatures))])
    )
    error = failure(genesis + b"".join(raws(game)))
    assert type(error) is BadSignature and (error.seat, error.seq) == (0, 0)


# --- a transcript that ends in a proven fraud --------------------------------------------------


def fraud_transcript() -> tuple[Transcript, int, int, int]:
    """Seed 7 until the first reveal; its seat signs a false rank; the other seat proves it."""
    local, agents = selfplay()
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None
        if turn.kinds == ("reveal",):
            break
        local.step(agents)
    cheater = turn.seat
    honest = local.seats[cheater].build(local.state, agents[cheater]).record.body
    lie = local.seats[cheater].sign(
        local.state, "reveal", {"rank": honest["rank"] % 10 + 1, "nonce": honest["nonce"]}
    )
    with pytest.raises(BadOpening):
        local.table.apply(local.state, lie)
    accusation = local.seats[1 - cheater].sign(local.state, "fraud", {"evidence": [lie.raw]})
    local.state = local.table.apply(local.state, accusation)
    local.records.append(accusation)
    final = local.run(agents)
    assert final.result is not None and final.result.forfeits == (cheater,)
    return local.transcript, cheater, 1 - cheater, accusation.seq


FRAUD_GAME = fraud_transcript()


def test_a_transcript_ending_in_a_proven_fraud_exits_1_and_names_the_cheater(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript, cheater, reporter, seq = FRAUD_GAME
    data = transcript.to_bytes()
    report = audit(data)
    assert report.error is None and not report.valid
    assert report.result is not None
    assert (report.result.reason, report.result.forfeits) == (FRAUD, (cheater,))
    assert report.result.evidence == (seq,)
    assert report.result.winner == ("Red", "Blue")[reporter]
    assert len(report.frauds) == 1
    assert f"record {seq}: seat {reporter} reports fraud by seat {cheater}" in report.frauds[0]
    assert f"false opening by seat {cheater}, record {seq}" in report.frauds[0]
    path = tmp_path / "fraud.cbor"
    path.write_bytes(data)
    code, out = cli(path, capsys)
    assert code == 1
    assert out.startswith("FRAUD ")
    assert f"reports fraud by seat {cheater}" in out
    assert f"forfeit by seat {cheater}" in out


def test_a_fraud_record_whose_evidence_is_edited_is_itself_refused() -> None:
    transcript, cheater, reporter, seq = FRAUD_GAME
    fraud = transcript.records[seq - 1]
    (lie,) = fraud.record.body["evidence"]
    # Swap the evidence for the cheater's honest record at that place: nothing is proven.
    local, agents = selfplay()
    while local.state.seq < seq - 1:
        local.step(agents)
    honest = local.seats[cheater].build(local.state, agents[cheater])
    assert honest.record.prev == parse_record(lie).record.prev and honest.raw != lie
    records = raws(transcript)
    records[seq - 1] = resign(fraud, "body", {"evidence": [honest.raw]})
    error = failure(with_records(transcript, records))
    assert type(error) is IllegalAction
    assert (error.seat, error.seq) == (reporter, seq)
    assert "no fraud shown" in error.what


def test_a_game_ended_by_an_abandon_audits_valid_and_names_the_deserter(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    local, agents = selfplay()
    for _ in range(12):
        local.step(agents)
    turn = local.table.expect(local.state)
    assert turn is not None
    claimer = local.seats[1 - turn.seat]
    claim = claimer.sign_abandon(local.state, {1 - turn.seat: claimer.absence_vote(local.state)})
    local.state = local.table.apply(local.state, claim)
    local.records.append(claim)
    local.run(agents)
    report = audit(local.transcript.to_bytes())
    assert report.valid, report.describe()
    assert report.result is not None and report.result.forfeits == (turn.seat,)
    assert f"forfeit by seat {turn.seat}" in report.describe()


# --- whatever the bytes: never a crash, never VALID --------------------------------------------


def audited(data: bytes) -> AuditReport | None:
    """The audit's verdict; None when it calls the bytes unreadable. Anything else propagates."""
    try:
        report = audit(data)
    except Unreadable:
        return None
    report.describe()
    return report


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    position=st.integers(min_value=0, max_value=len(SEED_7_BYTES) - 1),
    flip=st.integers(min_value=1, max_value=255),
)
def test_one_flipped_byte_anywhere_is_never_valid(data: bytes, position: int, flip: int) -> None:
    damaged = bytearray(data)
    damaged[position] ^= flip
    report = audited(bytes(damaged))
    if report is not None:
        assert not report.valid
        assert report.error is not None or report.result is None
        assert not report.describe().startswith(("VALID", "FRAUD"))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600))
def test_garbage_is_unreadable_or_invalid(garbage: bytes) -> None:
    report = audited(garbage)
    if report is not None:
        assert not report.valid


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(min_size=1, max_size=300), st.integers(min_value=0))
def test_garbage_after_some_honest_records_is_invalid(
    game: Transcript, garbage: bytes, cut: int
) -> None:
    keep = cut % (len(game.records) + 1)
    report = audited(with_records(game, raws(game)[:keep]) + garbage)
    assert report is not None  # the genesis is intact: the audit names the damaged item
    assert not report.valid
    assert report.error is not None


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64 - 1)
    | st.binary(max_size=40)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def lies(draw: Callable[..., Any], original: Any) -> Any:
    """A body a lying seat might sign: random, or the real one with one value replaced."""
    if not isinstance(original, dict) or draw(st.booleans()):
        return draw(values)
    key = draw(st.sampled_from(sorted(original)))
    value = original[key]
    if isinstance(value, tuple) and value and draw(st.booleans()):  # one element of a list
        i = draw(st.integers(0, len(value) - 1))
        return {**original, key: [*value[:i], draw(values), *value[i + 1 :]]}
    return {**original, key: draw(values)}


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_seat_signing_any_body_at_any_record_never_crashes_the_audit(d: Any) -> None:
    # the seed-7 game, and the game that ends in a fraud (it has fraud and final records)
    game = d.draw(st.sampled_from([SEED_7, FRAUD_GAME[0]]), label="game")
    seq = d.draw(st.integers(min_value=1, max_value=len(game.records)), label="seq")
    signed = game.records[seq - 1]
    check_a_resigned_body(game, seq, d.draw(lies(signed.record.body), label="body"))


def test_re_signing_an_unchanged_body_keeps_the_verdict_of_a_game_ending_in_fraud() -> None:
    game = FRAUD_GAME[0]
    check_a_resigned_body(game, 1, game.records[0].record.body)


def check_a_resigned_body(game: Transcript, seq: int, body: Any) -> None:
    """Record ``seq`` re-signed by its seat with ``body``: the verdict of the audit after it."""
    signed = game.records[seq - 1]
    records = raws(game)
    records[seq - 1] = resign(signed, "body", body)
    report = audited(with_records(game, records))
    assert report is not None
    if records[seq - 1] == signed.raw:  # the same body after a CBOR round trip: the same bytes
        unchanged = audit(game.to_bytes())
        assert (report.valid, report.describe()) == (unchanged.valid, unchanged.describe())
        return
    # Rejected at this record, naming the liar; or accepted there (a well-formed commitment, say)
    # and the audit fails later: at a reveal, or at the next record whose prev no longer matches.
    assert not report.valid and isinstance(report.error, RecordError)
    assert report.error.seq is not None and report.error.seq >= seq
    if report.error.seq == seq:
        assert report.error.seat == signed.seat


# --- false accusations: evidence that does not hold is the accuser's error ---------------------


def forged_record(table: bytes, seq: int, prev: bytes, seat: int, body: Any) -> bytes:
    """A record in ``seat``'s name that nobody signed (a zero signature)."""
    payload = encode(
        {"table": table, "seq": seq, "prev": prev, "seat": seat, "kind": "beacon", "body": body}
    )
    return encode(cbor2.CBORTag(COSE_SIGN1_TAG, [PROTECTED_SIGN1, {}, payload, bytes(64)]))


def test_a_fraud_record_with_forged_evidence_is_blamed_on_its_writer() -> None:
    local, agents = selfplay()
    for _ in range(20):
        local.step(agents)
    turn = local.table.expect(local.state)
    assert turn is not None
    accuser = 1 - turn.seat
    g = local.state
    evidence = [
        forged_record(g.genesis.table, 1, g.genesis_link, turn.seat, {"n": n}) for n in (1, 2)
    ]
    bogus = local.seats[accuser].sign(local.state, "fraud", {"evidence": evidence})
    local.records.append(bogus)
    error = failure(local.transcript.to_bytes())
    assert (error.seat, error.seq) == (accuser, bogus.seq)


def test_two_colluding_seats_cannot_frame_a_third() -> None:
    definition = registry.load("resistance")
    local = new_local_table(definition, definition.options(), 5, SeededEntropy(1))
    g = local.state
    turn = local.table.expect(g)
    assert turn is not None
    liar, victim, reporter = turn.seat, (turn.seat + 1) % 5, (turn.seat + 2) % 5
    # The expected seat signs a fraud record "proving" that the victim equivocated, with two
    # records in the victim's name that nobody signed; its accomplice offers it as evidence.
    fake = [forged_record(g.genesis.table, 1, g.link, victim, {"n": n}) for n in (1, 2)]
    inner = local.seats[liar].sign(g, "fraud", {"evidence": fake})
    outer = local.seats[reporter].sign(g, "fraud", {"evidence": [inner.raw]})
    local.state = local.table.apply(g, outer)
    local.records.append(outer)
    local.run([definition.bots["random"](SeededEntropy(1).child(f"bot/{i}"), i) for i in range(5)])
    report = audit(local.transcript.to_bytes())
    assert report.result is not None
    # the seat that signed an invalid record (its own false accusation) is the one who forfeits
    assert report.result.forfeits == (liar,)
    assert all(f"fraud by seat {victim}" not in line for line in report.frauds)
