"""VS Code shows no widget from ipywidgets 8.1.9 (vscode-jupyter #17504): a kernel VS Code started says so
once, in one line with the fix, where the first form is made (or the first server connected); no other
kernel does.

Nothing here runs VS Code: the kernels are real, started with the environment VS Code's Jupyter extension
gives a Python kernel (its extension host's `VSCODE_*` variables, and `PYDEVD_IPYTHON_COMPATIBLE_DEBUGGING=1`
it sets itself). The ipywidgets installed with the tests is 8.1.9, the release pip installs today.
"""

from __future__ import annotations

import os
import sys

import pytest

from mcp_widgets.kernel.running_kernel import VSCODE_BLANK_WIDGETS, frontend_problem

from .harness import KernelFrontend

pytestmark = pytest.mark.kernel

VSCODE = {
    "VSCODE_PID": "4242",
    "VSCODE_CWD": "/home/ada",
    "VSCODE_IPC_HOOK": "/run/user/1000/vscode-ipc.sock",
    "VSCODE_NLS_CONFIG": '{"locale":"en"}',
    "PYDEVD_IPYTHON_COMPATIBLE_DEBUGGING": "1",
}
FORM = "mw.ElicitationForm('Who?', {'type': 'object', 'properties': {}}, server='x')"
CELLS = (  # the first form (or connect) says it; later ones do not
    f"import mcp_widgets as mw\nform = {FORM}",
    f"import mcp_widgets.kernel as k\nk.attach()\nagain = {FORM}",
)


def _plain_env() -> dict[str, str]:
    """Ours, without anything of VS Code's (the tests may run in its terminal)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("VSCODE_", "PYDEVD_"))}


def _stderr(env: dict[str, str]) -> list[str]:
    with KernelFrontend(sys.executable, env=env) as fe:
        said = []
        for code in CELLS:
            cell = fe.run(code, timeout=60)
            assert cell.status == "ok", (cell.evalue, cell.traceback)
            said.append(cell.stderr)
        return said


def test_a_kernel_vscode_started_says_it_once() -> None:
    import ipywidgets

    if ipywidgets.__version__ not in VSCODE_BLANK_WIDGETS:
        pytest.skip(f"ipywidgets {ipywidgets.__version__} is installed: VS Code shows its widgets")
    first, later = _stderr({**_plain_env(), **VSCODE})
    (line,) = first.splitlines()
    assert line == (
        f"mcp-widgets: VS Code shows no widget from ipywidgets {ipywidgets.__version__} (vscode-jupyter "
        "#17504), so no form would appear here: pip install ipywidgets==8.1.8 in this kernel's environment, "
        "then restart the kernel"
    )
    assert later == ""  # once: not again when forms are made


@pytest.mark.parametrize(
    "extra",
    [{}, {k: v for k, v in VSCODE.items() if k.startswith("VSCODE_")}],
    ids=["jupyter", "jupyterlab started from VS Code's terminal"],
)
def test_other_kernels_say_nothing(extra: dict[str, str]) -> None:
    assert _stderr({**_plain_env(), **extra}) == ["", ""]


def test_only_the_releases_vscode_cannot_show() -> None:
    assert frontend_problem(VSCODE, widgets="8.1.9") is not None
    assert frontend_problem(VSCODE, widgets="8.1.8") is None
    assert frontend_problem({"PYDEVD_IPYTHON_COMPATIBLE_DEBUGGING": "1"}, widgets="8.1.9") is None
