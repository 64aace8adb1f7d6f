"""`python -m benchmarks --quick` runs end to end and prints rows for every group (it never checks a time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ("forms", "elicitation", "waiting", "browser", "apps", "scale", "polling", "wire")
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
    # Every group that ran printed figures (a group may only be skipped with a reason, e.g. the browser).
    for group in GROUPS:
        mine = [cells for cells in rows if cells[0].strip() == group]
        assert mine, group
        if group not in IN_THE_BROWSER:
            assert all(cells[1].strip() != "skipped" for cells in mine), mine
            assert all(cells[2].strip() != "—" for cells in mine), mine
