"""`python -m benchmarks --quick` runs end to end and prints rows for every group (it never checks a time)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks._report import GROUPS  # every group the run prints, in its order
from tests.servers import ROOT

ROOT = ROOT
IN_THE_BROWSER = ("browser", "apps")  # --quick skips them (with a reason)

pytestmark = pytest.mark.kernel  # the waiting and scale groups start real kernels


@pytest.mark.timeout(600)  # about a minute, more on a loaded machine
def test_quick_benchmarks_print_every_group() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    table = proc.stdout.split("\n\n", 1)[1]
    rows = [line.split(" | ") for line in table.splitlines() if " | " in line]
    groups = {cells[0].strip() for cells in rows[1:]}
    assert groups == set(GROUPS), proc.stdout
    assert not any(cells[1].strip() == "ERROR" for cells in rows), proc.stdout
    # Every group that ran printed figures (a group may only be skipped with a reason, e.g. the browser); a
    # figure a loaded machine could not measure says why, and the others of its group still count.
    for group in GROUPS:
        mine = [cells for cells in rows if cells[0].strip() == group]
        assert mine, group
        if group not in IN_THE_BROWSER:
            assert all(cells[1].strip() != "skipped" for cells in mine), mine
            measured = [cells for cells in mine if cells[2].strip() != "—"]
            assert measured, mine
            unmeasured = [cells[-1].strip() for cells in mine if cells not in measured]
            assert all(note.startswith("not measured: ") for note in unmeasured), unmeasured


@pytest.mark.timeout(300)
def test_a_figure_that_cannot_be_measured_says_why_and_the_run_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import elicitation
    from benchmarks._report import print_table

    # A real kernel cell that prints nothing where the figures should be (what a loaded machine once gave:
    # "ValueError: not enough values to unpack"), then the same figures measured for real.
    rows = [*elicitation.kernel_rows("auto", 2, bench="pass", grace=1), *elicitation.kernel_rows("auto", 2)]
    print_table(rows)
    table = capsys.readouterr().out.splitlines()
    failed, measured = table[2:4], table[4:6]
    for line in failed:
        cells = [cell.strip() for cell in line.split(" | ")]
        assert cells[2] == "—", line
        assert cells[-1].startswith("not measured: RuntimeError: the kernel cell printed"), line
        assert "'nothing', not 2 figures" in cells[-1], line
    assert [line.split(" | ")[1].strip() for line in measured] == [
        "in a kernel 2026-07-28: tool call eliciting once",
        "in a kernel 2026-07-28: added per elicitation",
    ]
    assert all(line.split(" | ")[2].strip() != "—" for line in measured), measured
