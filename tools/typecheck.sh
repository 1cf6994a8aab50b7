#!/usr/bin/env bash
# mypy --strict over crypto/ and engines/ (and the rest, less strictly).
# The package maps top-level folders onto spycraft.* (pyproject's package-dir), which mypy cannot
# follow through an editable install, so we give it a symlink tree with the real layout.
# mypy runs as `$PYTHON -m mypy`: the test suite sets PYTHON to the interpreter running the tests,
# so the check uses that environment's mypy (any venv); by hand it is the `python3` on PATH.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
cd "$(dirname "$0")/.."
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/spycraft"
cp spycraft/__init__.py "$tree/spycraft/"
for d in crypto engines p2p cli; do ln -s "$PWD/$d" "$tree/spycraft/$d"; done
MYPYPATH="$tree" "$PYTHON" -m mypy --strict --no-incremental -p spycraft.crypto -p spycraft.engines -p spycraft.p2p -p spycraft.cli "$@"
