"""The session's own frame types, registered with the wire's schema table.

========== ===================================================================================
join       beacon (32 B), host (text <= 64), port (int), sig (64 B): sent after the hello by a
           peer that asks for a seat: its beacon chain tip, the address it listens on for the
           mesh, and its identity's signature over that address for this table
           (``seating.sign_address``), which the roster carries and every seat checks
roster     game (text), options (bytes: canonical CBOR map), total (int), beacon_length (int),
           turn_timeout_ms (int), seats (array of bytes: canonical CBOR {name, identity,
           table_key, beacon, host, port, sig}): the lobby is full; everyone builds the same
           genesis from this (and refuses it unless every seat signed its own address)
gsig       seat (int), sig (64 B): one seat's signature over the genesis
head       seq (int), link (32 B): the sender's last record, sent after every hello on a
           play connection, so whoever is behind asks for what it misses
evidence   records (array of bytes): two records one seat signed for one place (equivocation)
absent     seq (int), prev (32 B), seat (int), voter (int), sig (64 B): the voter's signed vote
           that ``seat``, named by the engine at (seq, prev), is absent (``engines.absence``)
chat       message (bytes <= 2048): one signed chat message (``crypto.chat``), said or relayed
genesis    genesis (bytes): the signed genesis, the first frame a seat sends a spectator after
           the handshake (the spectator checks every signature and the table id it asked for)
ping       nonce (8 B): is this link alive? (sent on a live link when its peer connects again)
pong       nonce (8 B): the answer to the ping with that nonce
========== ===================================================================================
"""

from __future__ import annotations

from spycraft.crypto.chat import MAX_CHAT_BYTES
from spycraft.crypto.records import MAX_RECORD_BYTES
from spycraft.p2p.wire import UINT, array, raw, register_frame_type, text

PING_SIZE = 8

_SESSION_FRAMES = {
    "join": {"beacon": raw(32), "host": text(64), "port": UINT, "sig": raw(64)},
    "roster": {
        "game": text(32),
        "options": raw(max_size=4096),
        "total": UINT,
        "beacon_length": UINT,
        "turn_timeout_ms": UINT,
        "seats": array(raw(max_size=512), max_size=16),
    },
    "gsig": {"seat": UINT, "sig": raw(64)},
    "head": {"seq": UINT, "link": raw(32)},
    "evidence": {"records": array(raw(), max_size=2)},
    "absent": {"seq": UINT, "prev": raw(32), "seat": UINT, "voter": UINT, "sig": raw(64)},
    "chat": {"message": raw(max_size=MAX_CHAT_BYTES)},
    "genesis": {"genesis": raw(max_size=MAX_RECORD_BYTES)},
    "ping": {"nonce": raw(PING_SIZE)},
    "pong": {"nonce": raw(PING_SIZE)},
}

for _name, _fields in _SESSION_FRAMES.items():
    register_frame_type(_name, _fields)
