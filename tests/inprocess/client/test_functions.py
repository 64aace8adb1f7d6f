"""`srv.fn`: tools as Python functions (#31) against the demo server and a low-level server whose tools
have awkward names, an outputSchema they break, and errors."""

from __future__ import annotations

import asyncio
import inspect
import pydoc
from typing import Any, Literal, Optional

import mcp_types as t
import pytest
from mcp.server import Server as LowLevelServer

import mcp_widgets as mw
from mcp_widgets import OutputSchemaError, ToolError
from mcp_widgets.demo import create_server

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(60)]

OUT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
TOOLS = [
    t.Tool(
        name="get-weather",
        description="Weather by city.",
        input_schema={
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "Where", "minLength": 2},
                "units": {"type": "string", "enum": ["c", "f"], "default": "c"},
                "first-day": {"type": "integer", "minimum": 0},
            },
            "required": ["city"],
        },
    ),
    t.Tool(name="class", input_schema={"type": "object", "properties": {}}),
    t.Tool(
        name="counted",
        input_schema={"type": "object", "properties": {"bad": {"type": "boolean"}}},
        output_schema=OUT,
    ),
    t.Tool(name="fails", input_schema={"type": "object", "properties": {}}),
]


def lowlevel() -> LowLevelServer:
    sent: list[dict[str, Any]] = []

    async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
        return t.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: t.CallToolRequestParams) -> t.CallToolResult:
        args = dict(params.arguments or {})
        sent.append(args)
        if params.name == "counted":
            value: Any = "three" if args.get("bad") else 3
            return t.CallToolResult(content=[t.TextContent(text="3")], structured_content={"n": value})
        if params.name == "fails":
            return t.CallToolResult(content=[t.TextContent(text="it broke")], is_error=True)
        return t.CallToolResult(content=[t.TextContent(text=repr(sorted(args.items())))])

    server = LowLevelServer("awkward", on_list_tools=list_tools, on_call_tool=call_tool)
    server.sent = sent  # type: ignore[attr-defined]
    return server


def test_demo_tools_are_functions_with_real_signatures_and_docstrings() -> None:
    srv = mw.connect_sync(create_server())
    try:
        search = srv.fn.search_files
        sig = inspect.signature(search)
        assert list(sig.parameters)[:3] == ["query", "kind", "limit"]
        assert sig.parameters["query"].default is inspect.Parameter.empty
        assert sig.parameters["query"].annotation is str
        assert sig.parameters["limit"].default == 10 and sig.parameters["limit"].annotation is int
        assert sig.parameters["sort_by"].annotation == Literal["name", "size"]
        assert "A glob or part of a name" in search.__doc__ and "Search the simulated files" in search.__doc__
        assert "search_files(query: str" in pydoc.render_doc(search, renderer=pydoc.plaintext)
        assert "search_files" in dir(srv.fn) and "weather" in dir(srv.fn)
        found = search.sync("*.tmp", limit=1)
        assert found["total"] >= 1 and len(found["matches"]) == 1
        assert asyncio.run(_await(srv.fn.search_files("*.tmp", sort_by="size")))["total"] == found["total"]
        # checked before anything is sent, naming the argument (never the value)
        with pytest.raises(ValueError, match=r"search_files\(\): argument 'limit': must be at most 100"):
            search.sync("x", limit=1000)
        with pytest.raises(TypeError, match=r"argument 'limit': must be a whole number"):
            search.sync("x", limit="many")
        with pytest.raises(ValueError, match=r"argument 'sort_by': not one of the allowed values"):
            search("x", sort_by="colour")
        with pytest.raises(TypeError, match=r"search_files\(\): missing a required argument: 'query'"):
            search.sync()
        with pytest.raises(TypeError, match="unexpected keyword argument 'qeury'"):
            search.sync("x", qeury="y")
    finally:
        srv.close()


async def _await(awaitable: Any) -> Any:
    return await awaitable


def test_awkward_names_output_schema_and_tool_errors() -> None:
    server = lowlevel()
    srv = mw.connect_sync(server)
    try:
        fn = srv.fn
        assert sorted(dir(fn)) == ["class_", "counted", "fails", "get_weather"]
        assert fn["get-weather"] is fn.get_weather and fn["class"] is fn.class_
        sig = inspect.signature(fn.get_weather)
        assert str(sig) == "(city: str, units: Literal['c', 'f'] = 'c', **arguments: Any) -> str"
        assert "'first-day' (pass as **{...})" in fn.get_weather.__doc__
        assert fn.get_weather.sync("Oslo", **{"first-day": 2}) == "[('city', 'Oslo'), ('first-day', 2)]"
        assert server.sent[-1] == {"city": "Oslo", "first-day": 2}  # units left for the server's default
        count = len(server.sent)
        with pytest.raises(ValueError, match=r"argument 'first-day': must be at least 0"):
            fn.get_weather.sync("Oslo", **{"first-day": -1})
        with pytest.raises(ValueError, match=r"argument 'city': must be at least 2 characters"):
            fn.get_weather.sync("O")
        assert len(server.sent) == count  # nothing was sent
        assert fn.counted.sync() == {"n": 3}
        assert inspect.signature(fn.counted).return_annotation == dict[str, Any]
        with pytest.raises(
            OutputSchemaError,
            match=r"counted: the result does not match its outputSchema: n: must be a whole number",
        ) as bad:
            fn.counted.sync(bad=True)
        assert bad.value.result.structured_content == {"n": "three"}  # the raw result stays reachable
        with pytest.raises(ToolError, match="fails: it broke") as failed:
            fn.fails.sync()
        assert failed.value.result.is_error
        with pytest.raises(AttributeError, match="lists no tool 'nope'"):
            fn.nope  # noqa: B018
        assert "get_weather(city: str" in repr(fn) and "# tool 'get-weather'" in repr(fn)
    finally:
        srv.close()


def test_optional_annotations() -> None:
    from mcp_widgets.core.tools.signature import tool_signature

    sig = tool_signature(
        {
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
                "b": {"type": "array", "items": {"type": "string"}},
            },
        },
        None,
    )
    assert sig.parameters["a"].annotation == Optional[int]  # noqa: UP045
    assert sig.parameters["b"].annotation == Optional[list[str]]  # noqa: UP045
