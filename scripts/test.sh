#!/usr/bin/env bash
# The README's test command: installs everything the tests need (idempotent), then runs them.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/inprocess/core/test_schema.py -q`.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test,bench]" 2>&1 | grep -v "is ignored" || true
.venv/bin/python -c "import mcp_widgets, ipywidgets, mcp" # fail early if the install did not take

# Debian's Chromium + JupyterLab + pinned Playwright for the real-browser tests.
bash scripts/browser-deps.sh
# Older ipykernel versions the kernel tests run against, each in its own venv.
bash scripts/kernel-venvs.sh
# Node 22, the official MCP conformance suite and the TypeScript SDK for the interop tests.
if [ -f scripts/conformance-deps.sh ]; then
    bash scripts/conformance-deps.sh
fi

.venv/bin/ruff check mcp_widgets tests
# mypy, strict on the package ([tool.mypy] in pyproject.toml):
.venv/bin/mypy
export MCP_WIDGETS_STRICT=1  # a test skipped for a missing part fails: see tests/conftest.py
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest "$@"
fi
# The whole suite: two pytest processes side by side. Most of the suite waits (kernels starting, grace periods,
# a browser rendering) rather than computes, so on two cores this takes about two thirds of the time of one
# process. Not pytest-xdist: the browser tests must run last in their process (see tests/conftest.py), which
# xdist's scheduling does not keep. The halves are balanced by measured time (2026-12, 2 cores): the real-kernel
# tests with the fuzzers, the interop servers and the notebooks; and the rest, whose
# browser tests alone take about 16 minutes. The first half's output is printed when both have ended.
mkdir -p build
kernel_log=build/pytest-kernel.log
KERNEL_HALF=(tests/kernel tests/fuzz tests/interop tests/house/test_notebooks.py)
ignored=()
for part in "${KERNEL_HALF[@]}"; do ignored+=("--ignore=$part"); done
.venv/bin/python -m pytest "${KERNEL_HALF[@]}" -p no:cacheprovider --durations=15 >"$kernel_log" 2>&1 &
kernel_pid=$!
set +e
.venv/bin/python -m pytest "${ignored[@]}" --durations=15
rest=$?
wait "$kernel_pid"
kernel=$?
set -e
echo "=================== ${KERNEL_HALF[*]} (run alongside; its output follows) ==================="
cat "$kernel_log"
echo "pytest: the kernel half exit $kernel, the rest exit $rest"
[ "$kernel" -eq 0 ] && [ "$rest" -eq 0 ]
