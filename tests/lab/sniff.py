"""Watch the lab's switch: which spycraft mDNS packets and TCP connections crossed it, and where.

Run inside the switch namespace (``netns-lab.sh exec sw python -m tests.lab.sniff SECONDS``). It
only reads: one AF_PACKET socket sees every frame on every bridge port (``pN`` faces host N), so it
cannot disturb the hosts' own sockets (unlike a second listener on UDP 5353 in a host). It prints
``sniffing`` once ready, then one line per interesting frame:

    mdns IFACE in|out SRC DST           a UDP packet to port 5353 naming _spycraft._tcp
    syn  IFACE in|out SRC DST:PORT      a TCP SYN (a connection being opened)

``out`` on ``pN``: the bridge delivered the frame to host N's cable; ``in``: host N sent it.
"""

from __future__ import annotations

import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
# the DNS labels of _spycraft._tcp: their first use in a packet is never compressed
SERVICE = b"\x09_spycraft\x04_tcp"


def describe(frame: bytes, ifname: str, pkttype: int) -> str | None:
    if len(frame) < 14 + 20 or struct.unpack("!H", frame[12:14])[0] != ETH_P_IP:
        return None
    ip = frame[14:]
    header = (ip[0] & 0x0F) * 4
    protocol = ip[9]
    src, dst = socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20])
    l4 = ip[header:]
    way = "out" if pkttype == PACKET_OUTGOING else "in"
    if protocol == 17 and len(l4) >= 8:
        dport = struct.unpack("!H", l4[2:4])[0]
        if dport == 5353 and SERVICE in l4[8:]:
            return f"mdns {ifname} {way} {src} {dst}"
    elif protocol == 6 and len(l4) >= 14:
        dport = struct.unpack("!H", l4[2:4])[0]
        flags = l4[13]
        if flags & 0x02 and not flags & 0x10:  # SYN without ACK
            return f"syn {ifname} {way} {src} {dst}:{dport}"
    return None


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 120.0
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.settimeout(0.5)
    print("sniffing", flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            frame, address = s.recvfrom(65535)
        except TimeoutError:
            continue
        line = describe(frame, address[0], address[2])
        if line:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
