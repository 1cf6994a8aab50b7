"""What the red team 24 tests watch on the wire: which honest seats' key shares went out."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

Tap = Callable[[int, int, dict[str, Any]], None]

from spycraft.crypto.records import parse_record


def reveals_tap(honest: Collection[int]) -> tuple[set[int], Tap]:
    """A SimNet ``tap`` that notes every seat of ``honest`` whose ``reveal`` record went on a
    link (alone or in a sync reply), and the set it fills."""
    opened: set[int] = set()

    def tap(sender: int, receiver: int, frame: dict[str, Any]) -> None:
        raws = [frame["record"]] if frame["t"] == "record" else (
            frame["records"] if frame["t"] == "sync_reply" else [])
        for raw in raws:
            signed = parse_record(raw)
            if signed.record.kind == "reveal" and signed.seat in honest:
                opened.add(signed.seat)

    return opened, tap
