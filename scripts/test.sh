#!/usr/bin/env bash
# The README's test command: installs everything the tests need (idempotent), then runs them.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/test_schema.py -q`.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]" 2>&1 | grep -v "is ignored" || true
.venv/bin/python -c "import mcp_widgets, ipywidgets, mcp" # fail early if the install did not take

# Older ipykernel versions the kernel tests run against, each in its own venv.
if [ -f scripts/kernel-venvs.sh ]; then
    bash scripts/kernel-venvs.sh
fi

.venv/bin/ruff check mcp_widgets tests
exec .venv/bin/python -m pytest "$@"
