"""What every registered game must do: a new game gets all of these by registering.

Seeded determinism, replay equals live, the commands (selfplay with its narration, replay as
every seat, audit), body schemas (``true`` is never a number; any signed body gets a typed
error), every byte flip fails the audit, no kept secret leaks before the final reveal, and a
cheater is named with its seat and the evidence.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.cli.main import main
from spycraft.crypto.errors import MalformedRecord, RecordError
from spycraft.engines import registry
from spycraft.engines.audit import Unreadable, audit, audit_transcript
from spycraft.engines.game import GameSeat
from spycraft.engines.seat import table_key_secret
from spycraft.engines.table import FRAUD, Table
from tests.cli.person import unwrapped

from .games import (
    CONFIGS,
    SEED,
    SMALLEST,
    Config,
    flipped,
    new_table,
    number_paths,
    play_fresh,
    played,
    replaced,
)

every_config = pytest.mark.parametrize("config", CONFIGS, ids=str)
every_game = pytest.mark.parametrize("config", SMALLEST, ids=str)


def test_every_game_is_registered_with_a_kit_declaration() -> None:
    for name in registry.game_names():
        definition = registry.load(name)
        assert definition.moves, f"{name} declares its record kinds"
        assert set(definition.rules.sides), f"{name} names its sides"


@every_config
def test_seeded_selfplay_is_byte_for_byte_deterministic(config: Config) -> None:
    first = played(config).local.transcript.to_bytes()
    assert play_fresh(config).local.transcript.to_bytes() == first


@every_config
def test_replaying_the_transcript_gives_the_live_state(config: Config) -> None:
    game = played(config)
    table = Table(config.definition.rules)
    state = table.start(game.local.genesis)
    for signed in game.records:
        state = table.apply(state, signed)
    assert state == game.states[-1]
    assert state.result is not None


@every_config
def test_the_audit_of_a_selfplay_game_is_valid(config: Config) -> None:
    report = audit_transcript(played(config).local.transcript)
    assert report.valid, report.describe()


@every_config
def test_selfplay_narrates_every_record(config: Config, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", config.game, "--seed", str(SEED), *config.flags]) == 0
    out = unwrapped(capsys.readouterr().out).splitlines()  # the result may wrap at 80
    assert out[-1].startswith("result: ")
    assert len(out) > 2  # the story in words; protocol steps may be folded (issue 12)


@every_game
def test_replay_as_every_seat(
    config: Config, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.cbor"
    path.write_bytes(played(config).local.transcript.to_bytes())
    for seat in range(config.players):
        assert main(["replay", str(path), "--as", str(seat)]) == 0
        assert "result: " in capsys.readouterr().out


@every_game
def test_every_byte_flip_fails_the_audit(config: Config) -> None:
    data = played(config).local.transcript.to_bytes()
    for i in range(1, 13):
        position = len(data) * i // 13
        changed = data[:position] + bytes([data[position] ^ 0x40]) + data[position + 1 :]
        try:
            report = audit(changed)
        except Unreadable:
            continue
        assert not report.valid, f"a flip at byte {position} audits VALID"


@every_config
def test_true_is_never_a_number_in_any_body(config: Config) -> None:
    game = played(config)
    moves = config.definition.moves
    seen: set[tuple[str, tuple[Any, ...]]] = set()
    for state, signed in zip(game.states, game.records):
        record = signed.record
        move = moves.get(record.kind)
        if move is None:
            continue
        for path in number_paths(move.body, record.body):
            if (record.kind, path) in seen:
                continue
            seen.add((record.kind, path))
            body = replaced(record.body, path, True)
            forged = game.local.seats[record.seat].sign(state, record.kind, body)
            with pytest.raises(MalformedRecord) as error:
                game.local.table.apply(state, forged)
            assert (error.value.seat, error.value.seq) == (record.seat, record.seq)


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


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_signed_body_gets_a_typed_error_naming_its_writer_or_is_legal(
    data: st.DataObject,
) -> None:
    config = data.draw(st.sampled_from(CONFIGS))
    game = played(config)
    position = data.draw(st.integers(0, len(game.records) - 1))
    state, honest = game.states[position], game.records[position]
    body = mutate(dict(honest.record.body), data)
    forged = game.local.seats[honest.record.seat].sign(state, honest.record.kind, body)
    try:
        game.local.table.apply(state, forged)
    except RecordError as error:
        assert (error.seat, error.seq) == (honest.record.seat, forged.seq)


@every_config
def test_no_kept_secret_is_in_a_record_before_the_final_reveal(config: Config) -> None:
    game = played(config)
    rules = config.definition.rules
    final = getattr(rules, "final_reveal", ())
    for seat in game.local.seats:
        master = seat.context.master
        never = (master, table_key_secret(master))
        kept = seat.game.kept_secrets() if isinstance(seat.game, GameSeat) else ()
        for signed in game.records:
            raw = signed.raw
            assert not any(secret in raw for secret in never), f"seat {seat.index}'s master"
            if signed.record.kind not in final:
                leaked = [s for s in kept if s in raw]
                assert not leaked, f"seat {seat.index}'s secret in record {signed.seq}"


@every_game
def test_a_cheater_forfeits_named_with_its_seat_and_the_evidence(config: Config) -> None:
    game = played(config)
    start = len(game.records) // 3
    for position in range(start, len(game.records)):
        honest = game.records[position]
        if honest.record.kind in ("beacon", "result"):
            continue
        body = flipped(dict(honest.record.body))
        if body is None:
            continue
        state = game.states[position]
        cheat = game.local.seats[honest.record.seat].sign(state, honest.record.kind, body)
        try:
            game.local.table.apply(state, cheat)
        except RecordError:
            break
    else:
        pytest.fail("no record of this game could be changed into a cheat")
    cheater = honest.record.seat
    local, agents = new_table(config)
    while local.state.seq < position:
        local.step(agents)
    assert local.records[-1].raw == game.records[position - 1].raw
    accuser = (cheater + 1) % config.players
    fraud = local.seats[accuser].sign(local.state, "fraud", {"evidence": [cheat.raw]})
    local.state = local.table.apply(local.state, fraud)
    local.records.append(fraud)
    final = local.run(agents)
    assert final.result is not None
    assert cheater in final.result.forfeits and fraud.seq in final.result.evidence
    assert final.result.reason == FRAUD
    report = audit_transcript(local.transcript)
    assert not report.valid and report.describe().startswith("FRAUD ")


class Answers(io.StringIO):
    """Standard input of a person who always takes the first legal choice."""

    def readline(self, size: int | None = -1) -> str:
        return "#1\n"


@every_game
def test_play_offline_with_a_person_at_the_keyboard(
    config: Config, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp_path))  # the game is kept there, not in ~
    monkeypatch.setattr("sys.stdin", Answers())
    assert main(["play", config.game, "--offline", *config.flags]) == 0
    out = capsys.readouterr().out
    assert "result: " in out
