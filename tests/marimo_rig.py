"""Running a notebook in marimo's own runtime, from the venv `scripts/marimo-venv.sh` makes.

`marimo export html` runs every cell of a notebook in a real marimo kernel (its runtime context, its event
loop, its patched displays and streams: `marimo.running_in_notebook()` is True there) and writes the page
with each cell's outputs and console lines: the rig for what needs marimo's runtime but no clicks.
"""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("MCP_WIDGETS_MARIMO_VENV") or ROOT / ".venvs" / "marimo")


def marimo_command() -> Path:
    """marimo's command line in its venv; skips (fails under MCP_WIDGETS_STRICT) without the venv."""
    command = VENV / "bin" / "marimo"
    if not command.exists():
        pytest.skip(f"no marimo venv at {VENV}: run scripts/marimo-venv.sh")
    return command


def notebook(*cells: str) -> str:
    """A marimo notebook whose cells are `cells` (each a block of code; a cell whose code awaits is async)."""
    parts = ["import marimo", "", "app = marimo.App()", ""]
    for code in cells:
        body = "\n".join("    " + line if line else "" for line in code.strip("\n").splitlines())
        head = "async def" if "await " in code else "def"
        parts += ["", "@app.cell", f"{head} _():", body, "    return", ""]
    parts += ["", 'if __name__ == "__main__":', "    app.run()", ""]
    return "\n".join(parts)


def run_notebook(source: str, folder: Path, *, timeout: float = 240) -> str:
    """Run every cell of the notebook `source` in marimo's runtime; return the exported page, unescaped
    once (its console lines and outputs are in a JSON session inside it)."""
    path = folder / "notebook.py"
    path.write_text(source, encoding="utf-8")
    out = folder / "notebook.html"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [str(marimo_command()), "export", "html", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=folder,
        check=False,
    )
    if not out.exists():
        sys.stderr.write(done.stdout + done.stderr)
        raise AssertionError(f"marimo export failed ({done.returncode}): {done.stderr[-2000:]}")
    return html.unescape(out.read_text(encoding="utf-8"))
