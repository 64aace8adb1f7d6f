#!/usr/bin/env bash
# What the real-browser tests (tests/browser) need: Debian's headless Chromium and the `browser` extra
# (JupyterLab, Notebook 7, Voila, a pinned Playwright). Idempotent; runs unattended as root (CI). Playwright
# drives /usr/bin/chromium-headless-shell (Debian's headless build of its Chromium; tests/browser/harness.py
# says why): never run `playwright install`, which downloads a browser of its own.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -x /usr/bin/chromium-headless-shell ]; then
    echo "browser-deps: /usr/bin/chromium-headless-shell is there"
else
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q </dev/null
    $SUDO apt-get install -y -q chromium-headless-shell </dev/null
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# scripts/test.sh installs the browser extra itself (and runs tests meanwhile): then .venv stays as it is.
if ! .venv/bin/python -c "import playwright, jupyterlab, notebook, voila" 2>/dev/null; then
    source scripts/install.sh
    venv_install .venv/bin/python -e ".[test,browser]"
fi
.venv/bin/python -c "import playwright, jupyterlab, notebook, voila" # fail early if the install did not take
