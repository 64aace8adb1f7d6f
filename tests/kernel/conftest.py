"""Fixtures for tests against real kernels, one per supported ipykernel release.

The newest release is the one in the test environment itself; older ones live in venvs made by
`scripts/kernel-venvs.sh` (.venvs/ipykernel-6.31, .venvs/ipykernel-7.3). A missing venv skips its
tests and says how to create it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .harness import ROOT, KernelFrontend, ipykernel_version

_EXTRA_VENVS = ("6.31", "7.3")


@dataclass(frozen=True)
class KernelEnv:
    """One python with one ipykernel release."""

    label: str
    python: Path

    @property
    def available(self) -> bool:
        return self.python.exists()


def _envs() -> list[KernelEnv]:
    envs = [KernelEnv("newest", Path(sys.executable))]
    envs += [KernelEnv(v, ROOT / ".venvs" / f"ipykernel-{v}" / "bin" / "python") for v in _EXTRA_VENVS]
    return envs


def _params() -> list[object]:
    params: list[object] = []
    for env in _envs():
        marks = []
        if not env.available:
            venv = env.python.parent.parent
            reason = f"no venv for ipykernel {env.label} at {venv}: run scripts/kernel-venvs.sh"
            marks.append(pytest.mark.skip(reason=reason))
        params.append(pytest.param(env, id=f"ipykernel-{env.label}", marks=marks))
    return params


@pytest.fixture(params=_params(), scope="session")
def kernel_env(request: pytest.FixtureRequest) -> KernelEnv:
    env: KernelEnv = request.param
    return env


@pytest.fixture(scope="session")
def kernel_version(kernel_env: KernelEnv) -> tuple[int, ...]:
    text = ipykernel_version(kernel_env.python)
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


@pytest.fixture
def frontend(kernel_env: KernelEnv) -> Iterator[KernelFrontend]:
    """A fresh kernel of this release, with a frontend attached."""
    with KernelFrontend(kernel_env.python) as fe:
        yield fe
