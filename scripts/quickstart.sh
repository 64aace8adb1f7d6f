#!/usr/bin/env bash
# The README's first command: installs mcp-widgets with JupyterLab and opens the quickstart notebook,
# which talks to the embedded demo server (python -m mcp_widgets.demo). Extra arguments go to jupyter lab,
# e.g. `bash scripts/quickstart.sh --no-browser --ip 0.0.0.0` on a remote machine.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
source scripts/install.sh  # venv_install: uv where it can be had (several times faster), else pip
venv_install .venv/bin/python -e ".[lab]"
args=()
if [ "$(id -u)" = 0 ]; then args+=(--allow-root); fi
# The repository is the root, and the address printed (and opened) is the quickstart's own:
# http://localhost:8888/lab/tree/notebooks/quickstart.ipynb?token=...
exec .venv/bin/jupyter lab "${args[@]}" --ServerApp.root_dir="$PWD" \
    --LabApp.default_url=/lab/tree/notebooks/quickstart.ipynb "$@"
