"""Fixtures for tests against real kernels, one per supported ipykernel release.

The newest release is the one in the test environment itself; older ones live in venvs made by
`scripts/kernel-venvs.sh` (.venvs/ipykernel-6.31, .venvs/ipykernel-7.3). A missing venv skips its
tests and says how to create it.

Google Colab's runtime (.venvs/colab: ipykernel 6.17.1, IPython 7.34, ipywidgets 7.7.1) runs only the
tests marked `colab` (the waiting tests: await, blocking and background), not the whole kernel suite.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .harness import ROOT, KernelFrontend, ipykernel_version
from .pool import fresh_kernel

_EXTRA_VENVS = ("6.31", "7.3")


@dataclass(frozen=True)
class KernelEnv:
    """One python with one ipykernel release."""

    label: str
    python: Path

    @property
    def available(self) -> bool:
        return self.python.exists()


COLAB = KernelEnv("colab", ROOT / ".venvs" / "colab" / "bin" / "python")
"""Google Colab's runtime (scripts/colab-runtime.txt), for the tests marked `colab`."""


# One release per way a waiting cell gets its messages (mcp_widgets.kernel.adapter): ipykernel 7.4 and newer
# dispatch them natively ("newest"), the older tested releases have them pumped (6.31 stands for 7.3 too).
_ONE_PER_MECHANISM = ("newest", "6.31")


def _envs(colab: bool, one_per_mechanism: bool = False, newest: bool = False) -> list[KernelEnv]:
    envs = [KernelEnv("newest", Path(sys.executable))]
    envs += [KernelEnv(v, ROOT / ".venvs" / f"ipykernel-{v}" / "bin" / "python") for v in _EXTRA_VENVS]
    if one_per_mechanism:
        envs = [env for env in envs if env.label in _ONE_PER_MECHANISM]
    if newest:
        envs = envs[:1]
    return [*envs, COLAB] if colab else envs


def _params(colab: bool, one_per_mechanism: bool = False, newest: bool = False) -> list[object]:
    params: list[object] = []
    for env in _envs(colab, one_per_mechanism, newest):
        marks = []
        if not env.available:
            venv = env.python.parent.parent
            reason = f"no venv for ipykernel {env.label} at {venv}: run scripts/kernel-venvs.sh"
            marks.append(pytest.mark.skip(reason=reason))
        params.append(pytest.param(env, id=f"ipykernel-{env.label}", marks=marks))
    return params


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every kernel release for a test using `kernel_env` (one per waiting mechanism for one marked
    `one_per_mechanism`, the newest only for one marked `newest_kernel`); Colab's runtime too for one marked
    `colab`.

    `newest_kernel` is for a rule of ours that holds whatever the release, because no cell waits while it
    applies (what an app may send, how a refused link or a garbage answer ends): a cell that waits is where
    the releases differ (mcp_widgets.kernel.adapter), and those cases keep one release per mechanism. The
    whole suite's CPU is its time on CI's two cores (scripts/test.sh)."""
    if "kernel_env" in metafunc.fixturenames:
        colab = metafunc.definition.get_closest_marker("colab") is not None
        one = metafunc.definition.get_closest_marker("one_per_mechanism") is not None
        newest = metafunc.definition.get_closest_marker("newest_kernel") is not None
        metafunc.parametrize("kernel_env", _params(colab, one, newest), indirect=True, scope="session")


@pytest.fixture(scope="session")
def kernel_env(request: pytest.FixtureRequest) -> KernelEnv:
    env: KernelEnv = request.param
    return env


@pytest.fixture(scope="session")
def kernel_version(kernel_env: KernelEnv) -> tuple[int, ...]:
    text = ipykernel_version(kernel_env.python)
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


@pytest.fixture(scope="module")
def reused_kernels() -> Iterator[dict[str, KernelFrontend]]:
    made: dict[str, KernelFrontend] = {}
    yield made
    for fe in made.values():
        fe.stop()


@pytest.fixture
def frontend(
    kernel_env: KernelEnv, reused_kernels: dict[str, KernelFrontend], request: pytest.FixtureRequest
) -> Iterator[KernelFrontend]:
    """A fresh kernel of this release, with a frontend attached (started while the previous case ran).

    A case marked `reuse_kernel` instead gets the module's kernel of this release, if the previous such
    case passed and left it clean (idle, its servers closed by the module's `RESET` cell, every widget
    closed, no wait still holding the shell stream); else a fresh one. For cases that only need a working
    kernel: one about a kernel's first moments, or one that changes it for good, stays unmarked.
    """
    reuse = request.node.get_closest_marker("reuse_kernel") is not None
    fe = reused_kernels.pop(kernel_env.label, None) if reuse else None
    if fe is None:
        fe = fresh_kernel(kernel_env.python)
    try:
        yield fe
    finally:
        call = getattr(request.node, "report_call", None)
        if reuse and call is not None and call.passed and _clean(fe, getattr(request.module, "RESET", "")):
            fe.forget()
            reused_kernels[kernel_env.label] = fe
        else:
            fe.stop()


# After a reused kernel's case: close every widget it left, and report what could leak into the next case.
_RESET = """
import sys as _sys
_W = _sys.modules.get("ipywidgets")
for _w in list(_W.Widget.widgets.values()) if _W is not None else ():
    _w.close()
_bridge = _sys.modules.get("mcp_widgets.kernel.running_kernel")
_k = _bridge.get_kernel() if _bridge is not None else None
print("state", len(_W.Widget.widgets) if _W is not None else 0, *((_k.async_waiters, _k._saved_recv is None)
      if _k is not None else (0, True)))
del _sys, _W, _bridge, _k
"""


def _clean(fe: KernelFrontend, module_reset: str) -> bool:
    """Is the kernel fit for the next case? `module_reset`: the module's own clean-up cell (`RESET`)."""
    if not all(cell.done for cell in fe.cells.values()):
        return False
    try:
        if module_reset and fe.run(module_reset, timeout=30).status != "ok":
            return False
        cell = fe.run(_RESET, timeout=20)
    except TimeoutError:
        return False
    return cell.status == "ok" and cell.stdout.split() == ["state", "0", "0", "True"]
