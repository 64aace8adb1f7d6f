"""`srv.fn` (tools as functions, #31) and connect-by-name against the TypeScript SDK's reference server,
`@modelcontextprotocol/server-everything` (pinned in tests/interop/package.json), over its stdio entry point.

Its tools are written with zod schemas the SDK turns into JSON Schema, so the signatures here come from a
schema generator that is neither ours nor fastmcp's; its names are kebab-case (`get-sum`), so each of them is
a name that is not a Python identifier."""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

import mcp_widgets as mw
from mcp_widgets.client import Server
from tests.interop.nodejs import EVERYTHING, everything_server, node_or_skip

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


@pytest.fixture(scope="module")
def everything() -> Iterator[Server]:
    with everything_server() as srv:
        yield srv


def test_signatures_from_zod_schemas(everything: Server) -> None:
    fn = everything.fn
    assert {"echo", "get_sum", "get_structured_content", "get_env"} <= set(dir(fn))
    echo = inspect.signature(fn.echo)
    assert str(echo) == "(message: str) -> str"
    assert fn.echo.__doc__ is not None and "Echoes back the input string" in fn.echo.__doc__
    assert "message: Message to echo" in fn.echo.__doc__
    get_sum = inspect.signature(fn.get_sum)
    assert [p.annotation for p in get_sum.parameters.values()] == [float, float]
    assert all(p.default is inspect.Parameter.empty for p in get_sum.parameters.values())
    weather = inspect.signature(fn.get_structured_content)
    assert weather.parameters["location"].annotation == Literal["New York", "Chicago", "Los Angeles"]
    assert weather.return_annotation == dict[str, Any]  # it has an outputSchema
    assert str(inspect.signature(fn.get_env)) == "() -> str"
    # each argument in sentences (#42)
    assert "    a: First number.\n    b: Second number.\n" in (fn.get_sum.__doc__ or "")
    doc = fn.get_annotated_message.__doc__ or ""
    assert "    includeImage: Whether to include an example image. Optional.\n" in doc
    doc = fn.trigger_url_elicitation.__doc__ or ""
    assert "    elicitationId: Optional explicit elicitation ID. Defaults to a random UUID.\n" in doc


def test_calls_return_text_or_structured_content(everything: Server) -> None:
    fn = everything.fn
    assert fn.echo.sync("hello") == "Echo: hello"
    assert fn.get_sum.sync(2, b=3.5) == "The sum of 2 and 3.5 is 5.5."
    # the tool's own name, not an identifier, reaches the same function
    assert fn["get-sum"].sync(a=1, b=1) == "The sum of 1 and 1 is 2."
    assert fn["get-structured-content"].sync("Chicago") == {
        "temperature": 36,
        "conditions": "Light rain / drizzle",
        "humidity": 82,
    }


def test_bad_arguments_fail_before_anything_is_sent(everything: Server) -> None:
    fn = everything.fn
    with pytest.raises(TypeError, match=r"get_sum\(\): argument 'a': must be a number"):
        fn.get_sum.sync("two", 1)
    with pytest.raises(ValueError, match=r"get_structured_content\(\): argument 'location': not one of"):
        fn.get_structured_content.sync("Paris")
    with pytest.raises(TypeError, match="message"):
        fn.echo.sync()


def test_connect_by_name_from_a_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Desktop's format, as a person writes it: `${env:...}` in `env`, and the server taken by name."""
    node = node_or_skip(EVERYTHING)
    monkeypatch.setenv("EVERYTHING_TEST_HOME", str(tmp_path))
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "everything": {
                        "command": node,
                        "args": [str(EVERYTHING), "stdio"],
                        "env": {"EVERYTHING_WHERE": "${env:EVERYTHING_TEST_HOME}/sub"},
                    }
                }
            }
        )
    )
    srv = mw.connect_sync("everything", config=config, timeout=60)
    try:
        assert srv.name == "everything"
        env = json.loads(srv.fn.get_env.sync())
        assert env["EVERYTHING_WHERE"] == f"{tmp_path}{os.sep}sub"
        assert srv.fn.echo.sync("by name") == "Echo: by name"
    finally:
        srv.close()
