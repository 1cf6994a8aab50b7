"""The announcement's count never holds up the lobby (issue 21, item 2). Updating an ad waits
out zeroconf's three announcements (about 0.45 s); the opener used to await each update among
its lobby actions, so joiners who knocked together were admitted one per update: a ten-seat
table of bots took four seconds more to fill. The count is now shown by its own task, counts
that change during an update together by the next, and a full table's announcement is still
withdrawn (an update under way is cancelled, then the goodbyes go out). Real TCP and zeroconf on
loopback, one trio program.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from spycraft.p2p.discovery import Announcer, browse_tables
from tests.net.test_early_mesh import fill_a_table

pytestmark = pytest.mark.network


def test_joiners_who_knock_together_are_not_admitted_one_update_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    players = 6
    shown: list[int | None] = []
    update = Announcer.update

    async def counted(self: Announcer, seats_taken: int | None = None,
                      watching: int | None = None) -> None:
        shown.append(seats_taken)
        await update(self, seats_taken, watching)

    monkeypatch.setattr(Announcer, "update", counted)
    seen: list[str] = []

    async def watch(table_id: Any, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        # a browser that watches from before the table opens sees it come, and go once full
        with trio.fail_after(20):
            async with browse_tables("127.0.0.1") as ads:
                task_status.started()
                table = await table_id()
                async for change in ads:
                    if change.table_id == table:
                        seen.append(change.change)
                        if change.change == "removed":
                            return

    sessions = fill_a_table(tmp_path, players, watch=watch)
    assert len(sessions) == players
    assert {s.seat for s in sessions} == set(range(players))
    # The five joiners knocked together: four of them changed the count before the fifth
    # filled the table. Each update shown one at a time would be four updates; shown beside
    # the lobby, the joins that came during the first update are shown together by the next.
    assert 1 <= len(shown) < players - 2, shown
    assert shown == sorted(shown), shown  # the latest count, never an older one after it
    assert seen[-1] == "removed", seen


def test_a_count_changed_during_an_update_is_shown_by_the_next() -> None:
    """The opener's shell alone, its actions fed as the lobby's machine gives them: counts
    that change while an update is under way are shown together by the next update."""
    from spycraft.p2p.lobby import _OpenerShell
    from spycraft.p2p.seating import Announce

    class Held:
        """An announcement whose update ends when the test says (zeroconf's 0.45 s, held)."""

        def __init__(self) -> None:
            self.shown: list[int | None] = []
            self.release = trio.Event()

        async def update(self, seats_taken: int | None = None) -> None:
            self.shown.append(seats_taken)
            await self.release.wait()
            self.release = trio.Event()

    shell = _OpenerShell(None, None, lambda event: None)  # type: ignore[arg-type]
    ad = Held()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(shell.carry_out)
            nursery.start_soon(shell.republish, ad)
            for taken in (2, 3, 4):
                shell.feed([Announce(taken)])
                await trio.testing.wait_all_tasks_blocked()
            assert ad.shown == [2]  # 3 and 4 came while 2 was being shown
            ad.release.set()
            await trio.testing.wait_all_tasks_blocked()
            assert ad.shown == [2, 4]
            ad.release.set()
            await trio.testing.wait_all_tasks_blocked()
            assert ad.shown == [2, 4]  # nothing new: no update
            nursery.cancel_scope.cancel()

    trio.run(main)
