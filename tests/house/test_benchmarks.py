"""`python -m benchmarks --quick` runs end to end and prints rows for every group (it never checks a time), in
a few parts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks._report import GROUPS  # every group the run prints, in its order
from tests.servers import ROOT

ROOT = ROOT
IN_THE_BROWSER = ("browser", "apps")  # --quick skips them (with a reason)

pytestmark = pytest.mark.kernel  # the waiting and scale groups start real kernels


# The groups in a few runs of their own, so that a run a loaded machine made too slow is tried again alone:
# as one run of every group (about 125 CPU-seconds, 160 s alone), it took over its 600 s bound twice in a
# full run on 2026-12-07 and held its pytest process for 30 minutes. Each part is 10-50 CPU-seconds alone.
PARTS = {
    "forms, elicitation, the browser's": ("forms", "elicitation", "browser", "apps"),
    "waiting, scale, polling, privacy": ("waiting", "scale", "polling", "privacy"),
    "wire, completions": ("wire", "completions"),
    "explorer, wide, live": ("explorer", "wide", "live"),
}


def test_the_parts_hold_every_group_once() -> None:
    held = [group for groups in PARTS.values() for group in groups]
    assert sorted(held) == sorted(GROUPS)


@pytest.mark.timeout(420)  # 15-50 s alone, several times that in a full run
@pytest.mark.parametrize("part", list(PARTS))
def test_quick_benchmarks_print_every_group(part: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", *PARTS[part]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    table = proc.stdout.split("\n\n", 1)[1]
    rows = [line.split(" | ") for line in table.splitlines() if " | " in line]
    groups = {cells[0].strip() for cells in rows[1:]}
    assert groups == set(PARTS[part]), proc.stdout
    assert not any(cells[1].strip() == "ERROR" for cells in rows), proc.stdout
    # Every group that ran printed figures (a group may only be skipped with a reason, e.g. the browser); a
    # figure a loaded machine could not measure says why, and the others of its group still count.
    for group in PARTS[part]:
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
