"""What a peer keeps on disk so a crash loses nothing: the transcript and the seat's secrets.

Theory of operation: each game lives in its own folder, named by the table id, under the data
directory. ``transcript.cbor`` is the CBOR sequence of genesis + records (the same bytes
``spycraft audit`` reads), appended one item at a time and fsynced before the item is
acknowledged or forwarded. A record of ours is kept durably first in ``own.cbor``, with the memo
of the choice it made, in one write and one fsync before it is sent; its copy in the transcript
is then written without a fsync of its own, and reaches the disk with the next record appended
there (or ``sync``, which ``save_seat`` and ``close`` call): so a peer fsyncs once per record,
and a crash in between loses nothing, since a peer that resumes at that place sends the record
it remembered (``p2p.protocol``, Writing) and its peers send it back too. The files appended to
are kept open (``close`` closes them; the next append opens them again). ``seat.cbor`` (mode
0600, replaced atomically) holds what must stay private: the seat's master secret, its memo of
private choices, a bot's identity, and the roster (who sits where, at which address) needed to
reconnect. A peer that restarts replays the transcript through the engine, reloads its secrets,
and is exactly where it stopped. ``chat.cbor`` beside the transcript holds the table talk it
accepted (``crypto.chat``), a CBOR sequence in the order accepted, fsynced like the transcript
(our own counter must survive a crash, or a restarted seat would sign two messages with one
counter).

**A stored game is never overwritten.** A game's folder is named by its table id, which the
opener draws; an opener that reuses the id of a game stored here (by chance or on purpose)
would otherwise overwrite its transcript and seat secret, and its old memo of private choices
would be taken for the new game's. ``GameStore.create`` refuses a folder that holds a game
(``GameExists``, naming it), and a joiner checks ``stored_games_of`` before it sits down.

**All or nothing.** Every write goes through ``_write_all`` (a short write, which a nearly full
disk gives, is carried on until every byte is written) and fails as a ``StorageError`` naming
the file, what was being kept and the system's reason: an append that fails is taken back to
the file's size before it (``ftruncate``), a replacement leaves the old file and no ``.tmp``, so
the files hold exactly what they held before the failed write. Nothing waits on a failed write:
the session stops at once (the record it would have stored is not acknowledged, the record of
ours it would have remembered is not sent), and ``spycraft resume`` continues from the files
once the disk can be written again; until the record that failed is written, the transcript
takes no record after it (a task woken before the stop may still hand one over), and a file
with a gap, from an older spycraft, is read back to the gap. Reading back, a torn last item of
``own.cbor`` or ``chat.cbor`` (a crash inside an append) is cut off as the transcript's is, so
the next append starts on a whole item and nothing after it is lost to the tear.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spycraft.crypto.chat import ChatError, SignedChat, chat_items, parse_chat
from spycraft.crypto.encoding import decode_own, encode, item_length
from spycraft.crypto.errors import EncodingError, SpycraftError
from spycraft.crypto.records import SignedGenesis, SignedRecord
from spycraft.crypto.transcript import Transcript

# Windows opens files in text mode (newline translation) unless told otherwise; 0 elsewhere.
O_BINARY: int = getattr(os, "O_BINARY", 0)


class StorageError(SpycraftError):
    """A file of a stored game could not be written in full (a full disk, a folder that became
    read-only or went away). The message names the file, what it was to keep and why; nothing
    half-written is left behind (module docstring)."""


def _unwritable(path: Path, what: str, exc: OSError) -> StorageError:
    why = exc.strerror or type(exc).__name__
    return StorageError(f"cannot write {what} to {path}: {why} (nothing half-written was kept)")


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (``os.write`` may write fewer on a nearly full disk)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_private(path: Path, data: bytes, what: str = "a private file") -> None:
    """Replace ``path`` atomically with a file of mode 0600 holding ``data``; on failure the old
    file stays as it was and the temporary one is removed (``StorageError``)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | O_BINARY, 0o600)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise _unwritable(path, what, exc) from None


def _open_append(path: Path, what: str) -> int:
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | O_BINARY, 0o600)
    except OSError as exc:
        raise _unwritable(path, what, exc) from None


def _append_to(fd: int, size: int, path: Path, data: bytes, what: str, *, sync: bool) -> None:
    """Append ``data`` to the open file ``fd`` (``O_APPEND``, ``size`` bytes long) and, with
    ``sync``, fsync: all of it or nothing (``StorageError``)."""
    try:
        _write_all(fd, data)
        if sync:
            os.fsync(fd)
    except OSError as exc:
        try:  # take the half-written item back: the file is as it was before
            os.ftruncate(fd, size)
            os.fsync(fd)
        except OSError:
            pass  # then its reader cuts the torn item off (load_transcript, load_own)
        raise _unwritable(path, what, exc) from None


def _whole_items(data: bytes) -> int:
    """How many bytes at the start of a CBOR sequence are whole items (a torn tail excluded)."""
    complete = 0
    while complete < len(data):
        try:
            complete += item_length(data, complete)
        except EncodingError:
            break
    return complete


def _cut(path: Path, size: int) -> None:
    """Cut a torn last item off ``path`` (a crash inside an append left it; never acknowledged
    or sent), so the next append starts on a whole item."""
    with open(path, "r+b") as f:
        f.truncate(size)
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    if sys.platform == "win32":
        return  # a folder cannot be opened there; NTFS journals the rename itself
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class GameExists(Exception):
    """A new table would take the folder of a game stored on this machine (its table id)."""


STORED_FILES = ("transcript.cbor", "seat.cbor", "own.cbor", "chat.cbor")


@dataclass
class SeatFile:
    """The private half of a stored game (``seat.cbor``)."""

    game: str
    table: bytes
    seat: int | None  # None for an observer (a host without a seat)
    master: bytes
    memo: dict[str, Any]
    roster: list[dict[str, Any]]  # per seat: identity, host, port
    identity: bytes | None = None  # only for bot peers; humans use their config identity
    listen_port: int = 0
    interface: str = "127.0.0.1"
    finished: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_cbor(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "table": self.table,
            "seat": self.seat,
            "master": self.master,
            "memo": self.memo,
            "roster": self.roster,
            "identity": self.identity,
            "listen_port": self.listen_port,
            "interface": self.interface,
            "finished": self.finished,
            "extra": self.extra,
        }

    @classmethod
    def from_cbor(cls, m: dict[str, Any]) -> SeatFile:
        return cls(
            game=m["game"],
            table=m["table"],
            seat=m["seat"],
            master=m["master"],
            memo=_thaw(m["memo"]),
            roster=[dict(r) for r in m["roster"]],
            identity=m["identity"],
            listen_port=m["listen_port"],
            interface=m["interface"],
            finished=m["finished"],
            extra=_thaw(m["extra"]),
        )


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    if isinstance(value, dict):
        return {k: _thaw(v) for k, v in value.items()}
    return value


def _folded(memo: dict[str, Any] | None, change: tuple[Any, ...]) -> dict[str, Any]:
    """The memo after one entry of ``own.cbor``: (the whole memo,) as an older peer wrote it,
    or (changed, removed)."""
    if len(change) == 1 and isinstance(change[0], dict):
        return dict(change[0])
    changed, removed = change
    if not isinstance(changed, dict) or not isinstance(removed, tuple):
        raise TypeError("not a memo change")
    folded = dict(memo or {})
    folded.update(changed)
    for key in removed:
        folded.pop(key, None)
    return folded


class GameStore:
    """One game's folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.transcript_path = folder / "transcript.cbor"
        self.seat_path = folder / "seat.cbor"
        self.own_path = folder / "own.cbor"
        self.chat_path = folder / "chat.cbor"
        self._open: dict[Path, int] = {}  # the files appended to, kept open (``close``)
        self._kept: set[bytes] = set()  # our records that own.cbor holds durably
        self._unsynced = False  # the transcript holds records of ours not fsynced yet
        # The seq of a record whose append failed, and why: the transcript takes no record after
        # it until it is written (``append``).
        self._missing: tuple[int, StorageError] | None = None
        # The memo as own.cbor holds it, each entry's value encoded (None until it is read):
        # an entry keeps only what changed since (``remember_own``).
        self._memo_kept: dict[str, bytes] | None = None

    def _append(self, path: Path, data: bytes, what: str, *, sync: bool = True) -> None:
        """Append to one of the game's files through its open descriptor (opened on first use;
        opened again if the file was removed or replaced meanwhile, as a fresh open would)."""
        fd = self._open.get(path)
        size = -1
        if fd is not None:
            try:
                status = os.fstat(fd)
                if status.st_nlink > 0:
                    size = status.st_size
            except OSError:
                pass
            if size < 0:
                self._forget(path)
        if size < 0:
            fd = self._open[path] = _open_append(path, what)
            try:
                size = os.fstat(fd).st_size
            except OSError as exc:
                raise _unwritable(path, what, exc) from None
        assert fd is not None
        _append_to(fd, size, path, data, what, sync=sync)

    def _forget(self, path: Path) -> None:
        """Close the descriptor kept for ``path`` (the file is replaced or cut)."""
        fd = self._open.pop(path, None)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    def sync(self) -> None:
        """Make the records of ours that the transcript holds unsynced durable there too."""
        fd = self._open.get(self.transcript_path)
        if not self._unsynced or fd is None:
            return
        try:
            os.fsync(fd)
        except OSError as exc:
            raise _unwritable(self.transcript_path, "the transcript", exc) from None
        self._unsynced = False

    def close(self) -> None:
        """Sync what waits and close the files kept open (a later append opens them again)."""
        try:
            self.sync()
        finally:
            for path in list(self._open):
                self._forget(path)

    def __del__(self) -> None:
        for fd in getattr(self, "_open", {}).values():
            try:
                os.close(fd)
            except OSError:
                pass

    @classmethod
    def create(cls, root: Path, table: bytes, seat: int | None | str = "") -> GameStore:
        """The folder of one seat at one table: ``<table>-seat<N>`` (``<table>-host`` for a
        host without a seat), so that several seats of one table on one machine (a player and
        its bot peers, or ``bots --count 2``) never share a file. Older folders, named by the
        table alone, are still found and resumed."""
        name = table.hex()
        if seat != "":
            name += "-host" if seat is None else f"-seat{seat}"
        store = cls(root / "games" / name)
        if store.holds_a_game():
            raise GameExists(f"refused: a new table has the id of {store.describe()}, which "
                             "it would overwrite")
        try:
            store.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise _unwritable(store.folder, "the game's folder", exc) from None
        return store

    def holds_a_game(self) -> bool:
        return any((self.folder / name).exists() for name in STORED_FILES)

    def describe(self) -> str:
        """The stored game, in words: ``game resistance (seat 2, 37 records) in FOLDER``."""
        try:
            seat = self.load_seat()
            who = "watching" if seat.seat is None else f"seat {seat.seat}"
            transcript = self.load_transcript()
            records = "no transcript" if transcript is None else \
                f"{len(transcript.records)} records"
            what = f"game {seat.game} ({who}, {records}{', finished' if seat.finished else ''})"
        except (OSError, EncodingError, KeyError, TypeError, ValueError, SpycraftError):
            what = "a stored game"
        return f"{what} in {self.folder}"

    def save_seat(self, seat: SeatFile) -> None:
        self.sync()  # a seat file marked finished never outruns the transcript's end
        write_private(self.seat_path, encode(seat.to_cbor()), "the seat's secrets")

    def load_seat(self) -> SeatFile:
        return SeatFile.from_cbor(decode_own(self.seat_path.read_bytes()))

    def write_genesis(self, genesis: SignedGenesis) -> None:
        self._forget(self.transcript_path)
        write_private(self.transcript_path, genesis.raw, "the genesis")

    def append(self, *records: SignedRecord) -> None:
        """Append records and fsync once (a group commit when several wait). Records of ours
        that ``own.cbor`` already holds durably (``remember_own``) are written without a fsync
        of their own: the next append of another seat's record, ``sync`` or ``close`` makes
        them durable here too, and until then a crash loses nothing that own.cbor does not
        keep (a peer that resumes sends its remembered record at that place again).

        Once an append failed, the transcript takes nothing after the record it could not keep
        until that record is written: a task of the session already woken before the failure
        stopped it may still hand over the next record, and a small one fits in the room a
        full disk leaves in the file's last page (the chaos run, seed 44: records 99 and 101
        stored, 100 missing, and the resume refused the file)."""
        first = records[0].seq
        if self._missing is not None and first != self._missing[0]:
            seq, failure = self._missing
            raise StorageError(f"record {first} not stored: record {seq} before it could not be "
                               f"({failure})")
        try:
            self._append_records(records)
        except StorageError as exc:
            self._missing = (first, exc)
            raise
        self._missing = None

    def _append_records(self, records: tuple[SignedRecord, ...]) -> None:
        if len(records) == 1:  # every record taken in play: the same, with no lists built
            (signed,) = records
            ours = signed.raw in self._kept
            self._append(self.transcript_path, signed.raw, f"record {signed.seq}", sync=not ours)
            self._unsynced = ours
            return
        seqs = [r.seq for r in records]
        what = f"record {seqs[0]}" if len(seqs) == 1 else f"records {seqs[0]}-{seqs[-1]}"
        ours = all(r.raw in self._kept for r in records)
        self._append(self.transcript_path, b"".join(r.raw for r in records), what, sync=not ours)
        self._unsynced = ours

    def remember_own(self, seq: int, prev: bytes, raw: bytes, memo: dict[str, Any]) -> None:
        """Keep a record we signed, by its place, with the seat's memo of private choices as it
        stood then, durably, before the record is sent (``own.cbor``, mode 0600, a CBOR sequence
        of [seq, prev, record, changed, removed]: the memo's entries that changed since the
        entry before, and the keys it no longer holds): asked again at that place, we send the
        same record, and a restarted peer folds the entries into its memo (one fsync per record
        of ours). Only the change is written: the whole memo each time made the file grow with
        the square of the game (about 1 MB a seat for a two-seat SpyNet)."""
        if self._memo_kept is None:
            self.load_own()  # a store opened on a game: the memo its file holds so far
        kept = self._memo_kept or {}
        now = {key: encode(value) for key, value in memo.items()}
        changed = {key: memo[key] for key, value in now.items() if kept.get(key) != value}
        removed = sorted(kept.keys() - now.keys())
        entry = encode([seq, prev, raw, changed, removed])
        self._append(self.own_path, entry, f"our own record {seq}")
        self._memo_kept = now
        self._kept.add(raw)

    def load_own(self) -> tuple[dict[tuple[int, bytes], bytes], dict[str, Any] | None]:
        """The records we signed, by place, and the memo as of the last one (None if none),
        folded from every entry (an entry of an older peer holds the whole memo); a torn last
        item (a crash inside the append, so its record was never sent) is cut off."""
        self._memo_kept = {}
        if not self.own_path.exists():
            return {}, None
        data = self.own_path.read_bytes()
        whole = _whole_items(data)
        if whole < len(data):
            _cut(self.own_path, whole)
            data = data[:whole]
        own: dict[tuple[int, bytes], bytes] = {}
        memo: dict[str, Any] | None = None
        pos = 0
        while pos < len(data):
            try:
                end = pos + item_length(data, pos)
                entry = decode_own(data[pos:end])
                seq, prev, raw = entry[:3]
                memo = _folded(memo, entry[3:])
            except (EncodingError, ValueError, TypeError):
                break
            own[(seq, prev)] = raw
            self._kept.add(raw)
            pos = end
        if memo is None:
            return own, None
        self._memo_kept = {key: encode(value) for key, value in memo.items()}
        return own, _thaw(memo)

    def append_chat(self, raw: bytes) -> None:
        self._append(self.chat_path, raw, "a line of table talk")

    def rewrite_chat(self, raws: tuple[bytes, ...]) -> None:
        """Rewrite the chat file to exactly these messages (after a rollback)."""
        self._forget(self.chat_path)
        write_private(self.chat_path, b"".join(raws))

    def load_chat(self) -> tuple[SignedChat, ...]:
        """The chat messages kept before, read as far as they read (a torn last item is cut
        off; a message that does not parse is left out: ``audit`` names it)."""
        if not self.chat_path.exists():
            return ()
        data = self.chat_path.read_bytes()
        whole = _whole_items(data)
        if whole < len(data):
            _cut(self.chat_path, whole)
        items, _ = chat_items(data[:whole])
        kept = []
        for raw in items:
            try:
                kept.append(parse_chat(raw))
            except ChatError:
                continue
        return tuple(kept)

    def truncate_to(self, transcript: Transcript) -> None:
        """Rewrite the file to exactly ``transcript`` (only after proven equivocation)."""
        self._forget(self.transcript_path)
        self._unsynced = False  # write_private syncs the whole new file
        write_private(self.transcript_path, transcript.to_bytes(), "the transcript")
        self._missing = None  # the file ends where the table's chain now ends

    def load_transcript(self) -> Transcript | None:
        """The stored transcript. A crash inside an append leaves a torn last item, which no peer
        ever acknowledged (we ack only after the fsync): it is cut off, and sync brings it back.
        So is everything from the first record that does not follow the one before it (a gap a
        failed append left in a file of an older spycraft, ``append``): what the peers hold
        after it comes back the same way, and our own records from own.cbor."""
        if not self.transcript_path.exists():
            return None
        data = self.transcript_path.read_bytes()
        complete = _whole_items(data)
        transcript = Transcript.from_bytes(data[:complete])
        chained = _chained(transcript)
        if chained < len(transcript.records):
            transcript = Transcript(transcript.genesis, transcript.records[:chained])
            complete = len(transcript.genesis.raw) + sum(len(r.raw) for r in transcript.records)
        if complete < len(data):
            _cut(self.transcript_path, complete)
        return transcript


def _chained(transcript: Transcript) -> int:
    """How many records at the start of ``transcript`` follow each other (seq and prev)."""
    link = transcript.genesis.link
    for index, signed in enumerate(transcript.records):
        if signed.seq != index + 1 or signed.record.prev != link:
            return index
        link = signed.link
    return len(transcript.records)


def stored_games_of(root: Path, table: bytes) -> list[GameStore]:
    """The games stored under ``root`` whose table id is ``table`` (any seat, any layout)."""
    games = root / "games"
    if not games.is_dir():
        return []
    name = table.hex()
    return [GameStore(p) for p in sorted(games.iterdir())
            if (p.name == name or p.name.startswith(name + "-")) and GameStore(p).holds_a_game()]


def stored_games(root: Path) -> list[GameStore]:
    games = root / "games"
    if not games.is_dir():
        return []
    return [GameStore(p) for p in sorted(games.iterdir()) if (p / "seat.cbor").exists()]
