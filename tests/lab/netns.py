"""Drive ``netns-lab.sh`` from the tests: a lab of N hosts, processes inside them, teardown.

Each lab gets a prefix of its own, ``spyt<pid>-``: ``netns-lab.sh up`` first tears down any lab
with the same prefix, so a fixed prefix would let two test runs on one machine (two CI jobs, or two
people) kill each other's games. Labs left by a test run that died (SIGKILL, power loss) are
swept on the next ``up``: their prefix names a process that no longer exists.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Self

from tests.net.harness import ROOT, Proc

SCRIPT = Path(__file__).resolve().with_name("netns-lab.sh")
PREFIX = "spyt"   # namespaces are spyt<pid>-sw, spyt<pid>-h1, ...
NET = "10.78.0"   # not the lab tool's default 10.77.0 (labs are isolated anyway; easier reading)
_OURS = re.compile(rf"^{PREFIX}(\d+)-(sw|h\d+)$")


def unavailable() -> str | None:
    """Why a lab cannot be built here (for pytest.skip), or None when it can."""
    if not sys.platform.startswith("linux"):
        return f"the netns lab needs Linux network namespaces (this is {sys.platform})"
    if os.geteuid() != 0:
        return (f"the netns lab needs root: `ip netns add` needs CAP_SYS_ADMIN and CAP_NET_ADMIN "
                f"(running as uid {os.geteuid()}; CI runs as root; netns-lab.sh tells how to "
                f"use unshare instead)")
    for tool in ("ip", "bash"):
        if shutil.which(tool) is None:
            return f"the netns lab needs `{tool}` (iproute2 / bash) and it is not on PATH"
    probe = f"{PREFIX}probe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=30,
                          check=False)
    if made.returncode != 0:
        return f"`ip netns add` does not work here: {made.stderr.strip() or made.returncode}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=30, check=False)
    return None


def _namespaces() -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30,
                            check=False)
    return [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Lab:
    """``hosts`` lab hosts at NET.1..NET.hosts, each with eth0; the switch is host ``"sw"``."""

    def __init__(self, hosts: int, tmp: Path, net: str = NET) -> None:
        self.hosts = hosts
        self.tmp = tmp
        self.net = net
        self.prefix = f"{PREFIX}{os.getpid()}-"
        self.env = {"LAB_PREFIX": self.prefix, "LAB_NET": net, "LAB_LOCK": str(tmp / "lab.lock")}

    def script(self, *args: str, prefix: str | None = None,
               timeout: float = 60) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, **self.env)
        if prefix is not None:
            env["LAB_PREFIX"] = prefix
        return subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True,
                              text=True, timeout=timeout, check=False)

    def up(self) -> None:
        self.sweep()
        made = self.script("up", str(self.hosts))
        assert made.returncode == 0, f"netns-lab.sh up {self.hosts} failed:\n{made.stderr}"

    def down(self) -> None:
        gone = self.script("down")
        assert gone.returncode == 0, f"netns-lab.sh down failed:\n{gone.stderr}"
        left = [ns for ns in _namespaces() if ns.startswith(self.prefix)]
        assert not left, f"lab namespaces left after down: {left}"

    def sweep(self) -> None:
        """Take down labs of earlier test runs whose process is gone."""
        dead = {m.group(1) for m in map(_OURS.match, _namespaces())
                if m and not _alive(int(m.group(1)))}
        for pid in sorted(dead):
            self.script("down", prefix=f"{PREFIX}{pid}-")

    def addr(self, host: int) -> str:
        return f"{self.net}.{host}"

    def on(self, host: int | str) -> list[str]:
        """The words that run a command inside ``host`` (the script execs it: same pid)."""
        return ["env", *(f"{k}={v}" for k, v in self.env.items()), "bash", str(SCRIPT), "exec",
                str(host)]

    def proc(self, host: int | str, name: str, args: list[str], module: str = "spycraft") -> Proc:
        """``python -m module args`` inside ``host``, with its own SPYCRAFT_HOME and log in tmp."""
        return Proc(name, args, self.tmp, module=module, prefix=self.on(host))


_BARE = re.compile(rf"^{PREFIX}(\d+)-x[a-z0-9]+$")


class BareNamespace:
    """One network namespace of our own, with only ``lo`` up, for interface tests that build
    their own links (``ip(...)``) and run a command inside (``run(...)``); deleted on exit.
    Named ``spyt<pid>-x<tag><n>``; ones left by a dead test run are deleted on the next use."""

    _made = 0

    def __init__(self, tag: str) -> None:
        BareNamespace._made += 1
        self.name = f"{PREFIX}{os.getpid()}-x{tag}{BareNamespace._made}"

    def __enter__(self) -> Self:
        for ns in _namespaces():
            found = _BARE.match(ns)
            if found and not _alive(int(found.group(1))):
                subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30,
                               check=False)
        subprocess.run(["ip", "netns", "add", self.name], check=True, capture_output=True,
                       timeout=30)
        self.ip("link", "set", "lo", "up")
        return self

    def __exit__(self, *exc_info: object) -> None:
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=30,
                       check=False)

    def ip(self, *args: str) -> None:
        done = subprocess.run(["ip", "-n", self.name, *args], capture_output=True, text=True,
                              timeout=30, check=False)
        assert done.returncode == 0, f"ip {' '.join(args)}: {done.stderr}"

    def run(self, command: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["ip", "netns", "exec", self.name, *command], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout, check=False)
