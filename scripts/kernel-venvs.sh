#!/usr/bin/env bash
# Create extra virtualenvs holding older ipykernel releases, for the real-kernel tests.
#
#   scripts/kernel-venvs.sh [VERSION ...]     (default: 6.31 7.3)
#
# Each venv lands in .venvs/ipykernel-VERSION next to this repo's .venv and gets this repo
# installed editable plus "ipykernel~=VERSION.0". Idempotent: an existing venv is reused and only
# brought up to date. The tests skip versions whose venv is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${KERNEL_VENV_PYTHON:-$root/.venv/bin/python}"
if [ ! -x "$python" ]; then
    python="$(command -v python3)"
fi
# A venv's python is a symlink to the base interpreter; build the new venvs from that base.
base="$("$python" -c 'import sys; print(sys._base_executable)')"

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
    versions=(6.31 7.3)
fi

for version in "${versions[@]}"; do
    venv="$root/.venvs/ipykernel-$version"
    if [ ! -x "$venv/bin/python" ]; then
        echo "kernel-venvs: creating $venv"
        "$base" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    fi
    # Always (re)install: cheap when nothing changed, and picks up new dependencies of this repo.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root" "ipykernel~=$version.0"
    "$venv/bin/python" -c "import ipykernel, sys; print('kernel-venvs: $venv has ipykernel', ipykernel.__version__); sys.exit(not ipykernel.__version__.startswith('$version.'))"
done
