#!/usr/bin/env bash
# Create the venv holding marimo, for the tests that run notebooks in marimo's own runtime
# (tests/kernel/test_marimo_kernel.py, tests/browser/test_marimo_browser.py).
#
#   scripts/marimo-venv.sh
#
# The venv lands in .venvs/marimo next to this repo's .venv (MCP_WIDGETS_MARIMO_VENV: elsewhere) and gets
# this repo installed editable plus marimo 0.25. marimo is no dependency of the package: it brings its own
# server, which the package never needs. Idempotent: an existing venv is reused and only brought up to date.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${KERNEL_VENV_PYTHON:-$root/.venv/bin/python}"
if [ ! -x "$python" ]; then
    python="$(command -v python3)"
fi
base="$("$python" -c 'import sys; print(sys._base_executable)')"
venv="${MCP_WIDGETS_MARIMO_VENV:-$root/.venvs/marimo}"
if [ ! -x "$venv/bin/python" ]; then
    echo "marimo-venv: creating $venv"
    "$base" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root" "marimo~=0.25.2" 2>&1 | grep -v "is ignored" || true
"$venv/bin/python" -c "import marimo, sys; print('marimo-venv: $venv has marimo', marimo.__version__); sys.exit(not marimo.__version__.startswith('0.25.'))"
