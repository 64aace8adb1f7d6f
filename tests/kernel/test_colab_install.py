"""Installing mcp-widgets into Google Colab's runtime changes none of what Colab ships.

`.venvs/colab` (scripts/kernel-venvs.sh colab) holds Colab's versions from scripts/colab-runtime.txt, then
this repository installed into it. pip upgrades a package whose version is below one of our lower bounds (or
the MCP SDK's), and Colab's widgets break with an upgraded ipywidgets or ipykernel: so pip's own plan for the
install must leave every one of them alone, and the venv must still hold exactly Colab's versions.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from .harness import ROOT

COLAB = ROOT / ".venvs" / "colab" / "bin" / "python"
RUNTIME = ROOT / "scripts" / "colab-runtime.txt"
_PIP_DRY_RUN = [str(COLAB), "-m", "pip", "install", "--dry-run", "--quiet", "--disable-pip-version-check"]

pytestmark = pytest.mark.skipif(
    not COLAB.exists(), reason=f"no Colab venv at {COLAB.parent.parent}: run scripts/kernel-venvs.sh colab"
)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime() -> dict[str, str]:
    """Colab's pinned versions, by canonical name."""
    pins: dict[str, str] = {}
    for line in RUNTIME.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[_canonical(name)] = version
    return pins


def test_the_runtime_file_names_colabs_widget_and_kernel_stack() -> None:
    pins = _runtime()
    assert {k: pins[k] for k in ("ipykernel", "ipython", "ipywidgets", "jupyter-client", "anywidget")} == {
        "ipykernel": "6.17.1",
        "ipython": "7.34.0",
        "ipywidgets": "7.7.1",
        "jupyter-client": "7.4.9",
        "anywidget": "0.9.21",
    }


def test_the_colab_venv_holds_colabs_versions() -> None:
    """The venv after our editable install: every pinned package still at Colab's version."""
    out = subprocess.run(
        [str(COLAB), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    installed = {_canonical(p["name"]): p["version"] for p in json.loads(out)}
    assert installed.get("mcp-widgets"), "mcp-widgets is not installed in the Colab venv"
    changed = {k: (v, installed.get(k)) for k, v in _runtime().items() if installed.get(k) != v}
    assert changed == {}, f"Colab's version, then the venv's: {changed}"


def test_pip_install_into_colab_changes_none_of_its_packages(tmp_path: Path) -> None:
    """pip's plan (--dry-run --report) for installing this repository: only additions, none of Colab's."""
    report = tmp_path / "report.json"
    subprocess.run(
        [*_PIP_DRY_RUN, "--report", str(report), str(ROOT)],
        capture_output=True,
        check=True,
        timeout=300,
    )
    plan = {
        _canonical(i["metadata"]["name"]): i["metadata"]["version"]
        for i in json.loads(report.read_text())["install"]
    }
    assert "mcp-widgets" in plan  # the report is read right: the package itself is always (re)installed
    touched = sorted(set(plan) & set(_runtime()))
    assert touched == [], f"pip would change Colab's {', '.join(f'{n} to {plan[n]}' for n in touched)}"
