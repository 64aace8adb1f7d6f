"""A server to explore (`srv.explore()`): many tools (200 by default), a prompt, two resources (one in
Markdown), a template and instructions that a notebook must show as text ($x$ math, a terminal escape,
markup). `python explored.py [N]` runs it over stdio."""

from __future__ import annotations

import sys
from typing import Any

from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = "Start with tool_0. Costs $5 and $10 \x1b[31mred\x1b[0m <b>bold</b>."
LONG_LINES = (
    "Tool number 1: looks a city up, then reads its weather, its tides, its trains and its museums, and sums "
    "them up in a paragraph a person can read before they travel there.",
    "Give it a city's name as people write it; days is how far ahead to look.",
)
"""tool_1's description: a first line longer than a listing's row shows, and a second line."""
GUIDE = """# Guide to $x$

Read **this** first, then [the docs](https://docs.example.org/start?from=guide).

- one *item* with `code`
- ![a logo](https://images.example.org/logo.png) <b>raw</b> <img src=x onerror="window.__pwned=1">

| col | umn |
|-----|-----|
| 1   | 2   |
"""
"""A Markdown resource: math, a link and an image (neither to be fetched), raw HTML, a table."""


def build_server(tools: int = 200, name: str = "explored") -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name, instructions=INSTRUCTIONS)

    def make(n: int) -> None:
        def tool(city: str, days: int = 1) -> str:
            return f"tool_{n}: {city} for {days} days"

        description = "\n".join(LONG_LINES) if n == 1 else f"Tool number {n}: looks a city up."
        server.add_tool(tool, name=f"tool_{n}", description=description)

    for n in range(tools):
        make(n)

    @server.prompt(description="Greets someone.")
    def greet(who: str) -> str:
        return f"Hello {who}"

    @server.resource("note://readme", description="A short note.")
    def readme() -> str:
        return "the readme says $x$ hello"

    @server.resource("note://guide.md", description="A guide, in Markdown.", mime_type="text/markdown")
    def guide() -> str:
        return GUIDE

    @server.resource("note://item/{id}", description="An item by id.")
    def item(id: str) -> str:
        return f"item {id}"

    return server


if __name__ == "__main__":
    build_server(int(sys.argv[1]) if len(sys.argv) > 1 else 200).run("stdio")
