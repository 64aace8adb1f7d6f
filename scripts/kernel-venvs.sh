#!/usr/bin/env bash
# Create extra virtualenvs holding older ipykernel releases, for the real-kernel tests.
#
#   scripts/kernel-venvs.sh [VERSION ...]     (default: 6.31 7.3 colab)
#
# Each venv lands in .venvs/ipykernel-VERSION next to this repo's .venv and gets this repo
# installed editable plus "ipykernel~=VERSION.0". "colab" is .venvs/colab: Google Colab's runtime
# (scripts/colab-runtime.txt: ipykernel 6.17.1, IPython 7.34, ipywidgets 7.7.1, notebook 6.5.7, ...),
# then this repo installed editable into it, which must change none of those (pip would upgrade them if
# a lower bound of ours were above Colab's; tests/kernel/test_colab_install.py checks it with a dry run).
# Idempotent: an existing venv is reused and only brought up to date. The tests skip versions whose
# venv is missing.
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
    versions=(6.31 7.3 colab)
fi

source "$root/scripts/install.sh"  # venv_install: uv where it can be had, else pip

for version in "${versions[@]}"; do
    if [ "$version" = colab ]; then
        venv="$root/.venvs/colab"
        if [ ! -x "$venv/bin/python" ]; then
            echo "kernel-venvs: creating $venv"
            "$base" -m venv "$venv"
            venv_install "$venv/bin/python" --upgrade pip  # its install check runs pip's --dry-run --report
        fi
        venv_install "$venv/bin/python" -r "$root/scripts/colab-runtime.txt"
        venv_install "$venv/bin/python" -e "$root"
        "$venv/bin/python" -c "import ipykernel, ipywidgets; print('kernel-venvs: $venv has ipykernel', ipykernel.__version__, 'ipywidgets', ipywidgets.__version__)"
        continue
    fi
    venv="$root/.venvs/ipykernel-$version"
    if [ ! -x "$venv/bin/python" ]; then
        echo "kernel-venvs: creating $venv"
        "$base" -m venv "$venv"
    fi
    # Always (re)install: cheap when nothing changed, and picks up new dependencies of this repo.
    venv_install "$venv/bin/python" -e "$root" "ipykernel~=$version.0"
    "$venv/bin/python" -c "import ipykernel, sys; print('kernel-venvs: $venv has ipykernel', ipykernel.__version__); sys.exit(not ipykernel.__version__.startswith('$version.'))"
done
