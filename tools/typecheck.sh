#!/usr/bin/env bash
# mypy --strict over crypto/ and engines/ (and the rest, less strictly).
# The package maps top-level folders onto spycraft.* (pyproject's package-dir), which mypy cannot
# follow through an editable install, so we give it a symlink tree with the real layout.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/spycraft"
cp spycraft/__init__.py "$tree/spycraft/"
for d in crypto engines p2p cli; do ln -s "$PWD/$d" "$tree/spycraft/$d"; done
MYPYPATH="$tree" .venv/bin/mypy --strict --no-incremental -p spycraft.crypto -p spycraft.engines -p spycraft.p2p -p spycraft.cli "$@"
