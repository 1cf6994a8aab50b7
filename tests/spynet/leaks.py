"""The leak scan: what one seat may not hold before SpyNet's final reveal, and a scan of bytes.

A card is hidden from a seat until the deck reveals it to that seat or to everyone (rules §12;
``DeckOps.knows``). A seat can read a hidden card only with every other seat's reveal token of
it (its own it makes itself), or with another seat's key share secret (which also opens the
tokens sealed to that seat) or master secret; the table key secret opens nothing any more, and
is looked for all the same. So the scan computes, from a finished
game whose final reveal opened every key share, for each seat:

* ``never``: the other seats' key share secrets, master secrets and table key secrets;
* ``tokens``: for each hidden card, the other seats' tokens (``x_j * c1``, encoded as points);
* ``labels``: the faces of its hidden cards (a card's id as text must not sit in its files).

``scan`` then looks for them in every byte a seat received or stored before the final reveal,
as raw substrings (no assumption about where a value might hide): a hidden card whose every
other token is there, or any ``never`` value, is a leak. Publicly revealed cards are the control:
their tokens must all be found, or the scan would be looking at the wrong bytes.

``unreadable_by_outsiders`` is the same question asked of the deck state itself: with its own
key and every published token, a seat never shown a card still cannot read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from spycraft.crypto.elgamal import combine
from spycraft.crypto.encoding import decode
from spycraft.crypto.errors import MalformedValue
from spycraft.crypto.group import Point, Scalar
from spycraft.engines.seat import TableSeat, table_key_secret
from spycraft.engines.spynet.rules import FACES, State
from spycraft.engines.spynet.scoring import teammate


@dataclass(frozen=True)
class Forbidden:
    seat: int | None  # None: an observer, who may know no hidden card at all
    never: tuple[bytes, ...]
    tokens: dict[int, dict[int, bytes]]  # hidden position -> other seat -> its token
    labels: dict[str, int]  # face of a hidden card -> its position
    public: dict[int, tuple[bytes, ...]]  # publicly revealed position -> every seat's token


def forbidden(final: State, seat: int | None, masters: Sequence[bytes]) -> Forbidden:
    """What ``seat`` may not hold before the final reveal of the finished game ``final``."""
    assert final.faces and all(s is not None for s in final.secrets), "the game was not opened"
    keys: list[Scalar] = [s for s in final.secrets if s is not None]
    ops = final.ops
    others = [j for j in range(final.n) if j != seat]
    never = [keys[j].encode() for j in others]
    never += [m for j in others for m in (masters[j], table_key_secret(masters[j]))]

    def token(position: int, j: int) -> bytes:
        share: Point = ops.deck.cards[position].c1 * keys[j]
        return share.encode()

    hidden = [
        p for p in range(len(ops.deck))
        if ops.face(p) is None and (seat is None or seat not in ops.viewers[p])
    ]
    return Forbidden(
        seat,
        tuple(never),
        {p: {j: token(p, j) for j in others} for p in hidden},
        {final.faces[p]: p for p in hidden},
        {p: tuple(token(p, j) for j in range(final.n)) for p, _ in ops.opened},
    )


def mates_missions(final: State, what: Forbidden) -> int:
    """How many of the teammate's face-down missions the seat was never shown; each must be
    among the cards scanned for (the count says the scan covered them)."""
    game = final.game
    assert game is not None and what.seat is not None
    mate = teammate(what.seat, final.n)
    if mate is None:
        return 0
    count = 0
    for pile in game.missions[mate]:
        for mission in pile:
            if what.seat not in final.ops.viewers[mission.position]:
                assert mission.position in what.tokens, mission
                count += 1
    return count


def texts(value: Any) -> Iterator[str]:
    """Every text string in a decoded CBOR value (map keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from texts(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from texts(key)
            yield from texts(item)


def cbor_texts(data: bytes) -> list[str]:
    return list(texts(decode(data)))


@dataclass(frozen=True)
class Scan:
    leaks: tuple[str, ...]
    hidden: int  # hidden cards looked for
    controls: int  # publicly revealed cards whose every token was found


def scan(what: Forbidden, blobs: Iterable[bytes], words: Iterable[str] = ()) -> Scan:
    everything = b"\x00".join(blobs)
    who = "the observer" if what.seat is None else f"seat {what.seat}"
    leaks = [f"{who} holds another seat's secret" for v in what.never if v in everything]
    for position, tokens in what.tokens.items():
        if all(t in everything for t in tokens.values()):
            leaks.append(f"{who} holds every token it lacks of hidden card {position}")
    for word in words:
        if word in what.labels:
            leaks.append(f"{who} holds the id {word} of hidden card {what.labels[word]}")
    controls = sum(all(t in everything for t in ts) for ts in what.public.values())
    return Scan(tuple(leaks), len(what.tokens), controls)


def unreadable_by_outsiders(state: State, seats: Sequence[TableSeat]) -> None:
    """Every card not public lacks a token of some seat other than any seat never shown it
    (once shown, only its first viewer's token is missing), so a seat never shown a card cannot
    combine all of its tokens, its own included."""
    ops = state.ops
    if not ops.shuffled:  # the fresh deck is public, in list order, until every seat shuffled
        return
    for position in range(len(ops.deck)):
        if ops.face(position) is not None:
            continue
        missing = [s for s in range(state.n) if s not in ops.published_by(position)]
        assert missing, f"every token of card {position} is public"
        if ops.viewers[position]:
            assert missing == [ops.viewers[position][0]]
        for seat in seats:
            if seat.index in ops.viewers[position]:
                continue
            key = seat.game.key
            own = ops.deck.cards[position].c1 * key
            tokens = [own, *(t for _, t in ops.public[position])]
            point = combine(ops.deck.cards[position], tokens)
            with pytest.raises(MalformedValue):
                FACES.label_of(point)
