"""The pure core imports no widget, kernel or SDK module (so it runs anywhere, and fast)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ["ipywidgets", "ipykernel", "IPython", "mcp", "mcp_types", "comm", "traitlets", "zmq", "anyio"]
CORE = [
    "mcp_widgets.core.schema",
    "mcp_widgets.core.validation",
    "mcp_widgets.core.outcome",
    "mcp_widgets.core.exceptions",
    "mcp_widgets.core.tools.schema",
    # The modules the core was split into (import-linter checks the same statically).
    "mcp_widgets.core.spec",
    "mcp_widgets.core.formats",
    "mcp_widgets.core.choices",
    "mcp_widgets.core.text",
    "mcp_widgets.core.protocol",
    "mcp_widgets.core.tools.parts",
    "mcp_widgets.core.tools.args",
    "mcp_widgets.core.tools.validator",
    "mcp_widgets.core.history",
    "mcp_widgets.core.history_records",
    "mcp_widgets.core.requests",
    "mcp_widgets.core.urls",
    "mcp_widgets.core.polling",
]


def loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", CORE)
def test_each_core_module_is_light(module: str) -> None:
    loaded = loaded_after(f"import {module}")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_core_together_is_light_and_works() -> None:
    code = (
        "import mcp_widgets.core.schema as s, mcp_widgets.core.validation as v, mcp_widgets.core.outcome, "
        "mcp_widgets.core.exceptions\n"
        "props = {'a': {'type': 'string', 'pattern': '^x'}}\n"
        "spec = s.parse_schema({'type': 'object', 'properties': props})\n"
        "assert v.validate_content(spec, {'a': 'xy'}).content == {'a': 'xy'}"
    )
    loaded = loaded_after(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    assert {"jsonschema", "regex", "mcp_widgets"} <= loaded


def test_the_probe_can_see_heavy_imports() -> None:
    # Guards the test above against passing vacuously.
    assert "ipywidgets" in loaded_after("import ipywidgets")
