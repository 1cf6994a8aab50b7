#!/usr/bin/env bash
# netns-lab.sh - N isolated "LAN hosts" on one Linux machine, built from network namespaces.
#
#   netns-lab.sh up N             create hosts 1..N (idempotent: an existing lab of the same prefix is torn down first)
#   netns-lab.sh exec I CMD...    run CMD inside host I (I = 1..N, or "sw" for the switch namespace).
#                                 Env inside: LAB_I, LAB_N, LAB_ADDR (e.g. 10.77.0.2), LAB_IFACE (eth0), LAB_NET
#   netns-lab.sh down             kill processes still running in lab namespaces, delete them (idempotent, safe to repeat)
#   netns-lab.sh status           list lab namespaces, addresses, bridge ports
#   netns-lab.sh addr I           print host I's IPv4 address
#   netns-lab.sh shape I|all ARGS... attach a root qdisc to host I's eth0, e.g.
#                                 shape all tbf rate 1mbit burst 32kbit latency 400ms
#                                 shape 2 netem delay 50ms loss 1%     (needs the sch_netem kernel module)
#   netns-lab.sh check            ping-free connectivity + multicast self test (uses python3 from PATH)
#
# Topology:   [lab-h1: eth0 10.77.0.1/24] --veth-- p1 +
#             [lab-h2: eth0 10.77.0.2/24] --veth-- p2 +-- br0   (in namespace lab-sw)
#             [lab-hN: eth0 10.77.0.N/24] --veth-- pN +
# The bridge lives in its own namespace, so NOTHING is created or changed in the root (host) namespace and
# lab traffic cannot reach any real interface. Each host namespace gets: lo up, eth0 with a deterministic
# MAC 02:77:00:00:00:NN, a 224.0.0.0/4 route via eth0 (so sockets that do not pick a multicast interface,
# e.g. zeroconf InterfaceChoice.Default, still work), IPv6 disabled unless LAB_IPV6=1.
# Bridge: STP off, forward_delay 0, multicast snooping off (mDNS 224.0.0.251 is link-local and flooded anyway;
# snooping off also makes non-link-local groups flood without needing an IGMP querier).
#
# Env knobs: LAB_PREFIX (default "lab-"), LAB_NET (default "10.77.0", a /24), LAB_IPV6 (0|1, default 0),
#            LAB_MTU (default 1500), LAB_LOCK (lock file, default ${TMPDIR:-/tmp}/netns-lab.<prefix>.lock),
#            LAB_RUN_AS=user (exec: run CMD as that user via setpriv, e.g. LAB_RUN_AS=$SUDO_USER)
# Needs: root (CAP_NET_ADMIN + CAP_SYS_ADMIN for `ip netns add`), iproute2, kernel veth + bridge support.
# Rootless (no sudo): run everything inside ONE user+net+mount namespace session:
#   unshare -Urnm sh -c 'mount -t tmpfs none /run && ./netns-lab.sh up 3 && ... && ./netns-lab.sh down'
# (the lab then exists only inside that session).
#
# Vendored copy of the team's shared lab tool (shared/lab/netns-lab.sh, described in
# shared/lab/README.md), so the tests and CI need nothing outside this repository at run time.
# Keep it in step with the shared copy: change it there first, then copy it here unchanged
# except for this note (`diff` against the shared copy should show only these lines).
# Used by tests/lab/netns.py (tests/net/test_netns.py).
set -euo pipefail

P=${LAB_PREFIX:-lab-}
NET=${LAB_NET:-10.77.0}
SW="${P}sw"
IPV6=${LAB_IPV6:-0}
MTU=${LAB_MTU:-1500}
LOCK=${LAB_LOCK:-${TMPDIR:-/tmp}/netns-lab.${P%-}.lock}

die() { echo "netns-lab: $*" >&2; exit 1; }
log() { [ -n "${LAB_QUIET:-}" ] || echo "netns-lab: $*" >&2; }
hostns() { echo "${P}h$1"; }
lab_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${P//./\\.}(sw|h[0-9]+)$" | sort -V || true; }
host_indexes() { lab_namespaces | sed -n "s/^${P//./\\.}h\([0-9]\+\)$/\1/p" | sort -n; }
ns_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF "$1"; }

preflight() {
  [ "$(id -u)" = 0 ] || die "must run as root (try: sudo $0 $*)"
  command -v ip >/dev/null || die "iproute2 'ip' not found (apt-get install iproute2)"
  [[ "$NET" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "LAB_NET must look like 10.77.0"
}

with_lock() { # run "$@" holding the lab lock (serialises concurrent up/down)
  if command -v flock >/dev/null && ( : >>"$LOCK" ) 2>/dev/null; then
    exec 9>>"$LOCK"; flock -w 60 9 || die "could not get lock $LOCK"
  else
    log "warning: running without lock ($LOCK not writable or no flock)"
  fi
  "$@"
}

kill_ns_procs() { # $1 = namespace; TERM then KILL whatever still runs in it (only lab processes live there)
  local ns=$1 pids i
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  [ -z "$pids" ] && return 0
  log "stopping processes in $ns: $(echo $pids)"
  kill -TERM $pids 2>/dev/null || true
  for i in $(seq 1 20); do
    pids=$(ip netns pids "$ns" 2>/dev/null || true); [ -z "$pids" ] && return 0; sleep 0.1
  done
  kill -KILL $pids 2>/dev/null || true; sleep 0.1
}

do_down() {
  local ns
  for ns in $(lab_namespaces); do kill_ns_procs "$ns"; done
  for ns in $(lab_namespaces); do
    ip netns del "$ns" 2>/dev/null || true   # deleting a namespace also destroys its veth ends / bridge
  done
  [ -z "$(lab_namespaces)" ] || die "could not delete: $(lab_namespaces | xargs)"
  log "down (no ${P}* namespaces left)"
}

nsysctl() { # best-effort sysctl inside a namespace
  local ns=$1; shift
  ip netns exec "$ns" sh -c 'for kv in "$@"; do k=${kv%%=*}; f=/proc/sys/$(echo "$k" | tr . /); [ -w "$f" ] && echo "${kv#*=}" > "$f"; done; true' _ "$@"
}

do_up() {
  local n=$1 i ns mac
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 250 ] || die "N must be 1..250"
  do_down
  UP_DONE=0   # any failure below (set -e or die) exits; the EXIT trap then removes the half-built lab
  trap 'if [ "${UP_DONE:-1}" = 0 ]; then echo "netns-lab: up failed, cleaning up" >&2; do_down; fi' EXIT
  ip netns add "$SW"
  ip -n "$SW" link set lo up
  nsysctl "$SW" net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
                net.bridge.bridge-nf-call-iptables=0 net.bridge.bridge-nf-call-ip6tables=0 net.bridge.bridge-nf-call-arptables=0
  ip -n "$SW" link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0 \
    || die "cannot create a bridge (kernel bridge support missing?)"
  ip -n "$SW" link set br0 mtu "$MTU" up
  for i in $(seq 1 "$n"); do
    ns=$(hostns "$i")
    ip netns add "$ns"
    if [ "$IPV6" != 1 ]; then nsysctl "$ns" net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; fi
    ip -n "$ns" link set lo up                                  # needed for 127.0.0.1 inside the host
    ip -n "$SW" link add "p$i" mtu "$MTU" type veth peer name eth0 netns "$ns" mtu "$MTU"
    ip -n "$SW" link set "p$i" master br0
    ip -n "$SW" link set "p$i" up
    mac=$(printf '02:77:00:00:%02x:%02x' $((i / 256)) $((i % 256)))
    ip -n "$ns" link set eth0 address "$mac"
    ip -n "$ns" addr add "$NET.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add 224.0.0.0/4 dev eth0                  # multicast without IP_MULTICAST_IF
  done
  # wait until every eth0 has carrier and every bridge port forwards
  for i in $(seq 1 50); do
    local ok=1
    for j in $(seq 1 "$n"); do
      ip -n "$(hostns "$j")" -o link show eth0 | grep -q 'state UP' || ok=0
    done
    [ "$(bridge -n "$SW" link show 2>/dev/null | grep -c 'state forwarding')" -ge "$n" ] || ok=0
    [ $ok = 1 ] && break; sleep 0.1
  done
  [ $ok = 1 ] || die "links did not come up"
  UP_DONE=1; trap - EXIT
  log "up: $n hosts ${P}h1..${P}h$n on $NET.1-$NET.$n/24 via bridge br0 in $SW"
}

do_exec() {
  local i=$1; shift
  [ $# -ge 1 ] || die "usage: exec I CMD..."
  local ns n; n=$(host_indexes | wc -l)
  if [ "$i" = sw ]; then ns=$SW; else ns=$(hostns "$i"); fi
  ns_exists "$ns" || die "no namespace $ns (run: $0 up N)"
  local addr="$NET.$i"; [ "$i" = sw ] && addr=""
  local drop=()
  if [ -n "${LAB_RUN_AS:-}" ]; then   # run the command as this (unprivileged) user inside the namespace
    drop=(setpriv --reuid="$(id -u "$LAB_RUN_AS")" --regid="$(id -g "$LAB_RUN_AS")" --init-groups --)
  fi
  exec ip netns exec "$ns" env LAB_I="$i" LAB_N="$n" LAB_ADDR="$addr" LAB_IFACE=eth0 LAB_NET="$NET" "${drop[@]}" "$@"
}

do_status() {
  local ns
  [ -n "$(lab_namespaces)" ] || { echo "no lab (${P}*) namespaces"; return 0; }
  for ns in $(lab_namespaces); do
    echo "== $ns  procs: $(ip netns pids "$ns" | wc -l)"
    ip -n "$ns" -br addr show | sed 's/^/   /'
  done
  ns_exists "$SW" && { echo "== bridge ports"; bridge -n "$SW" link show | sed 's/^/   /'; }
}

do_shape() {
  local sel=$1; shift; local i
  [ $# -ge 1 ] || die "usage: shape I|all QDISC ARGS..."
  for i in $( [ "$sel" = all ] && host_indexes || echo "$sel" ); do
    ip -n "$(hostns "$i")" link show eth0 >/dev/null 2>&1 || die "no host $i"
    ip netns exec "$(hostns "$i")" tc qdisc replace dev eth0 root "$@" \
      || die "tc qdisc '$*' failed on host $i (for netem the kernel needs sch_netem)"
  done
}

do_check() { # every host opens a TCP connection to every other host, and multicast reaches all
  local n; n=$(host_indexes | wc -l); [ "$n" -ge 1 ] || die "lab is not up"
  local py='
import socket, struct, sys, time, os
me, n, net, role = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
if role == "serve":
    t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("", 9)); t.listen()
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    u.bind(("", 5399)); u.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton("224.0.0.250") + socket.inet_aton("0.0.0.0"))
    print("ready", flush=True); u.settimeout(5); got = set()
    try:
        while len(got) < n - 1:
            d, a = u.recvfrom(64)
            if a[0] != f"{net}.{me}": got.add(a[0])
    except socket.timeout: pass
    print(f"h{me}: multicast from {len(got)}/{n-1} peers", flush=True); sys.exit(0 if len(got) == n - 1 else 1)
else:
    bad = 0
    for j in range(1, n + 1):
        if j == me: continue
        try: socket.create_connection((f"{net}.{j}", 9), timeout=2).close()
        except OSError as e: print(f"h{me} -> h{j}: TCP FAIL {e}"); bad += 1
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(3): u.sendto(b"hi", ("224.0.0.250", 5399)); time.sleep(0.2)
    print(f"h{me}: TCP to {n-1-bad}/{n-1} peers ok", flush=True); sys.exit(1 if bad else 0)
'
  local i pids=() rc=0
  for i in $(host_indexes); do
    ip netns exec "$(hostns "$i")" python3 -c "$py" "$i" "$n" "$NET" serve & pids+=($!)
  done
  sleep 0.5
  for i in $(host_indexes); do ip netns exec "$(hostns "$i")" python3 -c "$py" "$i" "$n" "$NET" connect || rc=1; done
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  [ $rc = 0 ] && echo "check: OK ($n hosts)" || { echo "check: FAILED"; return 1; }
}

cmd=${1:-}; shift || true
case "$cmd" in
  up)     [ $# = 1 ] || die "usage: up N"; preflight; with_lock do_up "$1" ;;
  down)   preflight; with_lock do_down ;;
  exec)   [ $# -ge 2 ] || die "usage: exec I CMD..."; preflight; do_exec "$@" ;;
  status) preflight; do_status ;;
  addr)   [ $# = 1 ] || die "usage: addr I"; echo "$NET.$1" ;;
  shape)  preflight; do_shape "$@" ;;
  check)  preflight; do_check ;;
  *) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; [ -z "$cmd" ] || [ "$cmd" = help ] || exit 2 ;;
esac
