#!/usr/bin/env bash
# The README's test command: installs everything the tests need (idempotent), then runs them.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/inprocess/core/test_schema.py -q`.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
source scripts/install.sh  # venv_install: uv where it can be had, else pip
# The browser extra too: the parts below then leave .venv as it is while tests already run from it.
venv_install .venv/bin/python -e ".[test,bench,browser]"
.venv/bin/python -c "import mcp_widgets, ipywidgets, mcp" # fail early if the install did not take
mkdir -p build
export MCP_WIDGETS_STRICT=1  # a test skipped for a missing part fails: see tests/conftest.py

# What needs only .venv starts now, alongside the parts below (which wait on the network more than they
# compute): the lint and type checks, and (for the whole suite) the in-process and fuzz tests.
background=()
stop_background() {
    # A group is a subshell timing its pytest: the pytest goes too, not left running on its own.
    for pid in "${background[@]}"; do pkill -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
}
trap stop_background EXIT
(
    set -e
    .venv/bin/ruff check mcp_widgets tests
    .venv/bin/ruff format --check mcp_widgets tests benchmarks  # the layout is ruff's: `ruff format` before committing
    .venv/bin/mypy  # strict on the package ([tool.mypy] in pyproject.toml)
) >build/lint.log 2>&1 &
lint_pid=$!
background+=("$lint_pid")
# The whole suite's pytest options. A test that fails gets two more tries: real kernels, browsers and servers on
# a loaded 2-core machine fail now and then in ways no rerun hides for long (each rerun is listed as RERUN in the
# summary, `-r fER`, and a test that fails three times fails the run; CI on 2026-12-06 failed on a fuzz case
# whose stdio server took over 8 s to start, twice in a row).
SUITE_OPTS=(-p no:cacheprovider --durations=${DURATIONS:-15} --reruns 2 --reruns-delay 1 -r fER)
# Two workers, a file each at a time (pytest-xdist): in one process they were the last group to end (38 min of a
# 38-min run on 2026-12-07, with 10 CPU-minutes: their time is waiting on servers, timers and a loaded machine).
# The quick benchmarks' smoke test once moved beside them made the run no shorter; it stays with the rest.
EARLY=(tests/inprocess tests/fuzz)
if [ $# -eq 0 ]; then
    (time .venv/bin/python -m pytest "${EARLY[@]}" "${SUITE_OPTS[@]}" -n 2 --dist loadfile) >build/pytest-early.log 2>&1 &
    early_pid=$!
    background+=("$early_pid")
fi

# The parts below install side by side: browser-deps.sh writes to .venv only when the install above did not
# take (it is also run on its own), the others to venvs and folders of their own. Each one's output is printed
# once all have ended, and any failure stops the run.
parts=(
    "browser-deps.sh"       # Debian's Chromium (+ JupyterLab, Notebook 7, Voila, Playwright if missing)
    "kernel-venvs.sh 6.31"  # older ipykernel versions the kernel tests run against, each in its own venv
    "kernel-venvs.sh 7.3"
    "kernel-venvs.sh colab"
    "marimo-venv.sh"        # marimo (its own runtime, no IPython kernel) in a venv of its own
    "conformance-deps.sh"   # Node 22, the official MCP conformance suite and the TypeScript SDK (interop tests)
)
setup_pids=()
for i in "${!parts[@]}"; do
    read -r -a part <<<"${parts[$i]}"
    (
        started=$SECONDS
        bash "scripts/${part[0]}" "${part[@]:1}"
        echo "setup: scripts/${parts[$i]} took $((SECONDS - started)) s"
    ) >"build/setup-$i.log" 2>&1 &
    setup_pids+=($!)
done
setup_failed=0
for i in "${!parts[@]}"; do
    if ! wait "${setup_pids[$i]}"; then
        echo "setup: scripts/${parts[$i]} failed:"
        setup_failed=1
    fi
    cat "build/setup-$i.log"
done
[ "$setup_failed" -eq 0 ]
lint=0
wait "$lint_pid" || lint=$?
cat build/lint.log
[ "$lint" -eq 0 ] || { echo "lint or type check failed"; exit 1; }

if [ $# -gt 0 ]; then
    trap - EXIT
    exec .venv/bin/python -m pytest "$@"
fi
# The whole suite: five pytest processes side by side (much of it waits on kernels and browsers). Not pytest-xdist:
# the browser tests must run last in their process (see tests/conftest.py), which xdist's scheduling does not keep.
# The machine's two cores are busy all along (2026-12-06, every process's CPU read from /proc each second during a
# full run: the machine 93 % busy; the browser's group 1,090 CPU-seconds, the kernels' halves 520 and 640, the
# in-process and fuzz tests 360, the house and interop ones 290; Chromium 900 of it, the kernels 920, of which
# `import mcp` is about 1.5 a kernel), so what counts is the CPU each part takes, and that none waits idle: the
# in-process and fuzz tests start with the setup, which mostly waits on the network; the browser's less five
# files; the kernels' first half (the apps, the headless matrix and the cases that wait longest) with the browser
# files that bring a front end of their own (marimo, Notebook 6.5) and the tour of the three Jupyter front ends;
# the kernels' second half with the app questions' and the URL card's browser files; and the rest (house,
# interop, and the client's kernel cases: KERNEL_WITH_REST). Browser tests run last in each process. The groups run alongside print their output at the end.
# A full run here (2026-12-06, setup already done) took 28.6 min: the rest ended at 17, the kernels' first half
# at 23, the in-process and fuzz tests at 25, the browser's group at 26 and the kernels' second half at 27. With
# a fresh JupyterLab page for every test (before `LabPages`, tests/browser/conftest.py), read the same way, it
# took 32.7 and the browser's group 1,490 CPU-seconds (runs vary by minutes: CI took 33 for that one). Moving two
# browser files to the rest once made it slower: a fourth browser at once (load 15 on two cores) slowed every
# group, and an app's anywidget then failed to load in time.
KERNEL_FIRST_HALF=(tests/kernel/test_apps_kernel.py tests/kernel/test_headless_matrix.py
    tests/kernel/test_runaway_kernel.py tests/kernel/test_client_progress_kernel.py
    tests/kernel/test_errors_kernel.py tests/kernel/test_live_kernel.py)
BROWSER_WITH_FIRST=(tests/browser/test_marimo_browser.py tests/browser/test_colab_browser.py
    tests/browser/test_tour_browser.py)
BROWSER_WITH_SECOND=(tests/browser/test_app_questions_browser.py tests/browser/test_url_card_browser.py)
BROWSER_MOVED=("${BROWSER_WITH_FIRST[@]}" "${BROWSER_WITH_SECOND[@]}")
# The rest ended 10 minutes before the kernels' second half (above): the client's kernel cases run there instead.
KERNEL_WITH_REST=(tests/kernel/test_client_kernel.py)
GROUPS_ALONGSIDE=("tests/browser ${BROWSER_MOVED[*]/#/--ignore=}" "${KERNEL_FIRST_HALF[*]} ${BROWSER_WITH_FIRST[*]}"
    "tests/kernel ${KERNEL_FIRST_HALF[*]/#/--ignore=} ${KERNEL_WITH_REST[*]/#/--ignore=} ${BROWSER_WITH_SECOND[*]}")
ignored=("${EARLY[@]/#/--ignore=}")  # started above
pids=()
for i in "${!GROUPS_ALONGSIDE[@]}"; do
    read -r -a group <<<"${GROUPS_ALONGSIDE[$i]}"
    for part in "${group[@]}"; do
        [[ "$part" == --* ]] && continue
        if [ "$part" = tests/kernel ]; then  # the rest runs the kernel files of KERNEL_WITH_REST, no other
            for file in tests/kernel/test_*.py; do
                [[ " ${KERNEL_WITH_REST[*]} " == *" $file "* ]] || ignored+=("--ignore=$file")
            done
        else
            ignored+=("--ignore=$part")  # the rest runs none of a group's paths
        fi
    done
    # bash's `time` prints each group's wall and CPU seconds (its processes and the kernels they waited for).
    (time .venv/bin/python -m pytest "${group[@]}" "${SUITE_OPTS[@]}") >"build/pytest-$i.log" 2>&1 &
    pids+=($!)
done
set +e
time .venv/bin/python -m pytest "${ignored[@]}" "${SUITE_OPTS[@]}"
rest=$?
codes=()
for pid in "${pids[@]}"; do
    wait "$pid"
    codes+=($?)
done
wait "$early_pid"
early=$?
trap - EXIT
set -e
failed=$((rest != 0 || early != 0))
echo "=================== ${EARLY[*]} (started with the setup; its output follows) ==================="
cat build/pytest-early.log
for i in "${!GROUPS_ALONGSIDE[@]}"; do
    echo "=================== ${GROUPS_ALONGSIDE[$i]} (run alongside; its output follows) ==================="
    cat "build/pytest-$i.log"
    [ "${codes[$i]}" -eq 0 ] || failed=1
done
echo "pytest: exit ${codes[*]} for the groups alongside, $early for the early one, $rest for the rest"
[ "$failed" -eq 0 ]
