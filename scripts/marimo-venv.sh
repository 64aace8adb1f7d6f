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
fi
source "$root/scripts/install.sh"  # venv_install: uv where it can be had, else pip
venv_install "$venv/bin/python" -e "$root" "marimo~=0.25.2"
"$venv/bin/python" -c "import marimo, sys; print('marimo-venv: $venv has marimo', marimo.__version__); sys.exit(not marimo.__version__.startswith('0.25.'))"
