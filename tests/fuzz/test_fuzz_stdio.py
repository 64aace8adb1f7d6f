"""The in-process fuzz, smaller, over stdio: the same hostile `MCPServer` as a subprocess."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from . import strategies as fs
from .checks import Typist, fuzz_settings
from .test_fuzz_inproc import canary, number, run_one

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(600)]

HOSTILE = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "hostile.py")]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@fuzz_settings(ci=5)
@given(script=fs.script(max_asks=2, max_steps=4), canary=canary, number=number)
def test_a_hostile_server_over_stdio(mode: str, script: dict[str, Any], canary: str, number: int) -> None:
    run_one(HOSTILE, mode, script, Typist(canary, number))
