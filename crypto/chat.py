"""Table talk: chat lines signed by their speaker, tied to the story of the game, never part of it.

Theory of operation
-------------------
* A **chat message** is a COSE_Sign1 (RFC 9052 §4.2, tag 18) signed with the speaker's identity
  key through the records' own signing path (``crypto.records.sign1``), but under its own
  protected header ``{1 (alg): -8 (EdDSA), 3 (content type): "application/spycraft-chat"}``.
  The header is part of what is signed (the Sig_structure), so a chat signature never verifies
  as a record's, a record's never as a chat's, and ``parse_record`` refuses a chat message for
  its header (and this module a record for its). Absence votes, hellos and auths are signed over
  their own domain strings, which no Sig_structure begins with.
* Its payload is the canonical CBOR map ``{table, seat, counter, seen, text}``: the table id, the
  speaker's seat, the speaker's own counter (1, 2, 3, ...: two different messages with one seat
  and one counter are an *equivocation of chat*, shown as such, never game fraud), the last seq
  the speaker held when it spoke (where the line goes in the game's story), and the text: 1 to
  ``MAX_CHAT_CHARS`` characters, no white space at either end, every character printable
  (``crypto.text``): a signed message can carry no escape sequence at all.
* Chat never enters the transcript or the engines: it changes no state and waits for no turn.
  A peer keeps the messages it accepted, in the order it accepted them, as a second CBOR
  sequence beside the transcript (``chat.cbor``); ``check_chat_log`` is what ``spycraft audit``
  runs on such a file: every message readable, of this table, signed by the key the genesis
  gives its seat, in its speaker's order (``ChatOrder``) and never tied past the transcript's
  end. Each failure names the message by speaker and counter.
* **One order rule** (``ChatOrder``): a speaker's messages come with rising counters and a
  ``seen`` that never goes back; a second message with a counter already held is an
  equivocation of chat (kept, shown as such, outside the order), a third is not kept. A peer
  keeps a message only if the rule admits it after what it kept before, and the audit checks
  the file with the very same rule, so what an honest peer keeps always audits: a message
  whose ``seen`` goes back, signed by a lying speaker, is dropped where it arrives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cbor2

from spycraft.crypto.encoding import decode, encode, read_sequence
from spycraft.crypto.errors import EncodingError, SpycraftError
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import (
    ALG_EDDSA,
    COSE_SIGN1_TAG,
    HEADER_ALG,
    TABLE_ID_BYTES,
    Genesis,
    sign1,
    sign1_valid,
)
from spycraft.crypto.text import is_printable

HEADER_CONTENT_TYPE = 3
CHAT_CONTENT_TYPE = "application/spycraft-chat"
PROTECTED_CHAT = encode({HEADER_ALG: ALG_EDDSA, HEADER_CONTENT_TYPE: CHAT_CONTENT_TYPE})
MAX_CHAT_CHARS = 280
MAX_CHAT_BYTES = 2048
"""A chat message's COSE bytes at most (280 characters of four UTF-8 bytes each fit)."""
MAX_CHAT_FILE_BYTES = 64 << 20


class ChatError(SpycraftError):
    """A chat message that must not be shown: unreadable, of another table, badly signed, or
    out of its speaker's order. ``seat`` and ``counter`` name it when they can be read."""

    def __init__(self, seat: int | None, counter: int | None, what: str) -> None:
        self.seat, self.counter, self.what = seat, counter, what
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.seat is None:
            return f"chat message: {self.what}"
        return f"chat message {self.counter} of seat {self.seat}: {self.what}"


@dataclass(frozen=True)
class ChatMessage:
    """What a speaker signs."""

    table: bytes
    seat: int
    counter: int
    seen: int
    text: str

    def to_cbor(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "seat": self.seat,
            "counter": self.counter,
            "seen": self.seen,
            "text": self.text,
        }


@dataclass(frozen=True)
class SignedChat:
    message: ChatMessage
    raw: bytes  # the exact COSE_Sign1 bytes
    payload: bytes = field(repr=False, compare=False)
    signature: bytes = field(repr=False, compare=False)

    @property
    def seat(self) -> int:
        return self.message.seat

    @property
    def counter(self) -> int:
        return self.message.counter

    @property
    def seen(self) -> int:
        return self.message.seen

    @property
    def text(self) -> str:
        return self.message.text


def text_fault(text: str) -> str | None:
    """Why ``text`` cannot be a chat line (None when it can)."""
    if not text:
        return "the text is empty"
    if len(text) > MAX_CHAT_CHARS:
        return f"the text is longer than {MAX_CHAT_CHARS} characters"
    if text != text.strip():
        return "the text has white space at an end"
    if not is_printable(text):
        return "the text holds control characters"
    return None


def sign_chat(message: ChatMessage, identity: Identity) -> SignedChat:
    """Sign a chat line (its text must pass ``text_fault``: ``ChatError`` otherwise)."""
    fault = text_fault(message.text)
    if fault is not None:
        raise ChatError(message.seat, message.counter, fault)
    payload = encode(message.to_cbor())
    raw, _ = sign1(payload, identity, PROTECTED_CHAT)
    return parse_chat(raw)


def _uint(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 63


def parse_chat(raw: bytes) -> SignedChat:
    """Structure only (the signature is ``check_chat``'s): ``ChatError`` for anything else."""
    if not isinstance(raw, bytes) or len(raw) > MAX_CHAT_BYTES:
        raise ChatError(None, None, f"not a byte string of at most {MAX_CHAT_BYTES} bytes")
    try:
        item = decode(raw, max_size=MAX_CHAT_BYTES)
    except EncodingError as exc:
        raise ChatError(None, None, f"not canonical CBOR: {exc}") from None
    if not isinstance(item, cbor2.CBORTag) or item.tag != COSE_SIGN1_TAG:
        raise ChatError(None, None, "not a COSE_Sign1 message (tag 18)")
    parts = item.value
    if not isinstance(parts, tuple) or len(parts) != 4:
        raise ChatError(None, None, "a COSE_Sign1 has 4 parts")
    protected, unprotected, payload, signature = parts
    if protected != PROTECTED_CHAT or unprotected != {}:
        raise ChatError(None, None, "not a chat message (its COSE headers say otherwise)")
    if not isinstance(payload, bytes) or not isinstance(signature, bytes) or len(signature) != 64:
        raise ChatError(None, None, "payload and a 64-byte signature must be byte strings")
    try:
        m = decode(payload, max_size=MAX_CHAT_BYTES)
    except EncodingError as exc:
        raise ChatError(None, None, f"payload: {exc}") from None
    if not isinstance(m, dict) or set(m) != {"table", "seat", "counter", "seen", "text"}:
        raise ChatError(None, None, "payload must be a map of table, seat, counter, seen, text")
    if not (_uint(m["seat"]) and _uint(m["counter"]) and _uint(m["seen"])):
        raise ChatError(None, None, "seat, counter and seen must be unsigned integers")
    seat, counter = m["seat"], m["counter"]
    if counter == 0:
        raise ChatError(seat, counter, "counters start at 1")
    if not isinstance(m["table"], bytes) or len(m["table"]) != TABLE_ID_BYTES:
        raise ChatError(seat, counter, "table must be a 16-byte id")
    if not isinstance(m["text"], str):
        raise ChatError(seat, counter, "text must be a text string")
    fault = text_fault(m["text"])
    if fault is not None:
        raise ChatError(seat, counter, fault)
    message = ChatMessage(m["table"], seat, counter, m["seen"], m["text"])
    return SignedChat(message, bytes(raw), payload, signature)


def check_chat(signed: SignedChat, genesis: Genesis) -> None:
    """Of this table, by a seat of it, signed by the identity key the genesis gives that seat;
    ``ChatError`` otherwise (naming whose key did sign, when it is another seat's)."""
    seat, counter = signed.seat, signed.counter
    if signed.message.table != genesis.table:
        raise ChatError(seat, counter, "it belongs to another table")
    if seat >= len(genesis.seats):
        raise ChatError(seat, counter, f"the table has no seat {seat}")
    if sign1_valid(genesis.seats[seat].identity, signed.signature, signed.payload,
                   PROTECTED_CHAT):
        return
    for other, keys in enumerate(genesis.seats):
        if other != seat and sign1_valid(keys.identity, signed.signature, signed.payload,
                                         PROTECTED_CHAT):
            raise ChatError(seat, counter, f"it is signed with seat {other}'s key")
    raise ChatError(seat, counter, "the signature does not verify (forged or altered)")


# --- the order of a speaker's messages ----------------------------------------------------------

VARIANTS = 2
"""Different messages kept for one speaker and counter: the first and the one that proves an
equivocation of chat."""


class ChatOrder:
    """The one order rule of table talk (see the theory of operation): what a receiver keeps
    and what the audit of a chat file checks."""

    def __init__(self) -> None:
        self.last: dict[int, SignedChat] = {}  # speaker -> its last message in order
        self.variants: dict[tuple[int, int], list[bytes]] = {}

    def fault(self, signed: SignedChat) -> str | None:
        """Why ``signed`` cannot follow what was kept (None: it can)."""
        variants = self.variants.get((signed.seat, signed.counter))
        if variants:
            if signed.raw in variants:
                return "it is stored twice"
            if len(variants) >= VARIANTS:
                return f"more than {VARIANTS} different messages with this counter"
            return None  # an equivocation of chat: kept outside the order
        before = self.last.get(signed.seat)
        if before is None:
            return None
        if signed.counter < before.counter:
            return f"out of order: it comes after message {before.counter} of this seat"
        if signed.seen < before.seen:
            return (f"out of order: it comes after message {before.counter} of this seat "
                    f"(tied to record {before.seen}) but is tied to record {signed.seen}")
        return None

    def keep(self, signed: SignedChat) -> bool:
        """Keep a message the rule admits; True if it is an equivocation of chat."""
        variants = self.variants.setdefault((signed.seat, signed.counter), [])
        variants.append(signed.raw)
        if len(variants) > 1:
            return True
        self.last[signed.seat] = signed
        return False

    def highest(self, seat: int) -> SignedChat | None:
        """The speaker's last message in order (the highest counter, the latest ``seen``)."""
        return self.last.get(seat)


# --- a stored chat file ----------------------------------------------------------------------


@dataclass
class ChatAudit:
    """What ``check_chat_log`` found: the lines that check, in file order; the problems (each
    names the message by speaker and counter, or by its place in the file); and the
    equivocations (two different messages with one speaker and one counter)."""

    lines: list[SignedChat] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    equivocations: list[tuple[SignedChat, SignedChat]] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems

    def describe(self) -> str:
        said = f"{len(self.lines)} chat line{'s' if len(self.lines) != 1 else ''}"
        out = [f"chat: {'VALID' if self.valid else 'INVALID'}, {said}"]
        out += [f"  {problem}" for problem in self.problems]
        out += [f"  chat equivocation: seat {a.seat} signed two different messages "
                f"numbered {a.counter} (a lie in table talk, not in the game)"
                for a, _ in self.equivocations]
        return "\n".join(out)


def chat_items(data: bytes) -> tuple[list[bytes], str | None]:
    """The items of a chat file, and why it could not be read to its end (None if it could)."""
    items, cut = read_sequence(data)
    return items, None if cut is None else f"{cut} (cut or damaged)"


def check_chat_log(data: bytes, genesis: Genesis, head: int) -> ChatAudit:
    """Check a chat file (a CBOR sequence of chat messages) against a table's genesis and the
    seq its transcript ends at."""
    report = ChatAudit()
    if len(data) > MAX_CHAT_FILE_BYTES:
        report.problems.append(f"the chat file is larger than {MAX_CHAT_FILE_BYTES} bytes")
        return report
    items, cut = chat_items(data)
    order = ChatOrder()
    for index, raw in enumerate(items, start=1):
        try:
            signed = parse_chat(raw)
            check_chat(signed, genesis)
        except ChatError as exc:
            where = "" if exc.seat is not None else f"item {index}: "
            report.problems.append(f"{where}{exc}")
            continue
        fault = order.fault(signed)
        if fault is not None:
            report.problems.append(str(ChatError(signed.seat, signed.counter, fault)))
            continue
        if signed.seen > head:
            report.problems.append(str(ChatError(
                signed.seat, signed.counter,
                f"it is tied to record {signed.seen}, past the transcript's end ({head})")))
            continue
        if order.keep(signed):
            first = next(parse_chat(r) for r in order.variants[(signed.seat, signed.counter)])
            report.equivocations.append((first, signed))
        report.lines.append(signed)
    if cut is not None:
        report.problems.append(cut)
    return report


def story_order(lines: list[SignedChat]) -> list[SignedChat]:
    """Chat lines in the order of the game's story: by the record each was tied to, and in the
    order they were held among lines tied to one record."""
    return sorted(lines, key=lambda line: line.seen)


__all__ = [
    "CHAT_CONTENT_TYPE",
    "MAX_CHAT_BYTES",
    "MAX_CHAT_CHARS",
    "PROTECTED_CHAT",
    "VARIANTS",
    "ChatAudit",
    "ChatError",
    "ChatMessage",
    "ChatOrder",
    "SignedChat",
    "chat_items",
    "check_chat",
    "check_chat_log",
    "parse_chat",
    "sign_chat",
    "story_order",
    "text_fault",
]
