"""A low-level server whose tools have the names that break a namespace of functions (`srv.fn`) (in-process).

Names the namespace once kept its own state under (`_by_tool`, `_names`, `_server`), names Python and
IPython look up on any object (`__init__`, `_ipython_display_`, `_repr_html_`), names that clash after
renaming, a keyword, a name Python reads differently (`ﬁle` is NFKC `file`), a digit that may not be in a
name, and a property `arguments` beside `first-day`. `hostile` describes itself with terminal escapes, an
OSC 8 link and a bidi override. Every call answers with the tool's own name and the arguments it got (JSON).
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as t
from mcp.server import Server

EMPTY: dict[str, Any] = {"type": "object", "properties": {}}

NAMES = (
    "_by_tool",
    "_names",
    "_server",
    "_ipython_display_",
    "_repr_html_",
    "__init__",
    "__listing__",
    "tool__init__",
    "_",
    "class",
    "get-weather",
    "get_weather",
    "ﬁle",
    "file",
    "x²",
)
"""Tools that take nothing (`dates` and `hostile` are listed beside them)."""

HOSTILE = (
    "Reads \x1b]8;;https://evil.example/\x1b\\the docs\x1b]8;;\x1b\\ \x1b[8mhidden\x1b[0m \x1b[2J"
    " and \u202eesrever\u202c."
)
"""A description a pager would draw (a link, hidden text, a cleared screen) and reverse (U+202E); the tool's
enum and default carry escapes too (the signature shows them)."""

TOOLS = [
    *(t.Tool(name=name, description=f"The tool {name}.", input_schema=EMPTY) for name in NAMES),
    t.Tool(
        name="dates",
        description="Days from a start.",
        input_schema={
            "type": "object",
            "properties": {
                "arguments": {"type": "string", "description": "What to count"},
                "first-day": {"type": "integer", "minimum": 0},
                "sort_by": {"type": "string", "title": "Sort By", "enum": ["name", "size"]},
            },
            "required": ["arguments"],
        },
    ),
    t.Tool(
        name="hostile",
        description=HOSTILE,
        input_schema={
            "type": "object",
            "properties": {
                "when": {"type": "string", "description": "A time \x1b[31mred\x1b[0m \u202eworb"},
                "colour": {"enum": ["\x1b[31mred", "\u202eblue"], "default": "\x1b[31mred"},
            },
        },
    ),
]


def build_server() -> Server:
    async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
        return t.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: t.CallToolRequestParams) -> t.CallToolResult:
        said = json.dumps({"tool": params.name, "arguments": params.arguments or {}}, sort_keys=True)
        return t.CallToolResult(content=[t.TextContent(text=said)])

    return Server("awkward-names", on_list_tools=list_tools, on_call_tool=call_tool)
