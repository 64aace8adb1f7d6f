"""A server written with fastmcp (the standalone package) asking with `ctx.elicit`, for the interop tests.

    python fastmcp_server.py stdio
    python fastmcp_server.py http        (127.0.0.1, a free port; prints "PORT <n>" first)

`ctx.elicit` sends elicitation/create mid-call, which only the 2025-11-25 generation allows: fastmcp refuses
it on 2026-07-28. Each tool asks with one of fastmcp's response-type forms (a model; the list / dict
shorthands for the enum shapes; a scalar) and returns JSON text {"action", "data"}: what fastmcp handed the
tool after validating the answer against its own type.

For completions (fastmcp's one `@server.completion` handler): the prompt `team-greeting` and the template
`team://{department}/{name}`, whose `name` narrows by the `department` sent as context.
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Annotated, Any, Literal

import mcp_types
from fastmcp import Context, FastMCP
from pydantic import BaseModel, Field


class Forecast(BaseModel):
    city: str
    temperatures: list[int]
    units: str


class Person(BaseModel):
    name: str
    age: int
    height: float
    member: bool = False
    color: Literal["red", "green", "blue"] = "green"
    nickname: str = "Ada"


TEAMS = {"Engineering": ["Alice", "Bob", "Charlie"], "Sales": ["David", "Eve"], "Support": ["Frank", "Grace"]}


def _complete(
    ref: Any, argument: mcp_types.CompletionArgument, context: mcp_types.CompletionContext | None
) -> list[str]:
    """Departments, or the names of the department given in the context (everyone without one)."""
    if argument.name == "department":
        return [d for d in TEAMS if d.startswith(argument.value)]
    department = ((context.arguments if context else None) or {}).get("department", "")
    pool = TEAMS.get(department) or [n for names in TEAMS.values() for n in names]
    return [n for n in pool if n.startswith(argument.value)]


def _echo(result: Any) -> str:
    data = getattr(result, "data", None)
    if isinstance(data, BaseModel):
        data = data.model_dump()
    return json.dumps({"action": result.action, "data": data})


def build_server() -> FastMCP:
    server = FastMCP("fastmcp-interop")

    @server.tool
    async def person(ctx: Context) -> str:
        """Ask for a person (a pydantic model)."""
        return _echo(await ctx.elicit("Who are you?", Person))

    @server.tool
    async def pick(ctx: Context) -> str:
        """Single choice, untitled (list shorthand)."""
        return _echo(await ctx.elicit("Color?", ["red", "green", "blue"]))

    @server.tool
    async def pick_titled(ctx: Context) -> str:
        """Single choice, titled (dict shorthand)."""
        titles = {"r": {"title": "Red"}, "g": {"title": "Green"}, "b": {"title": "Blue"}}
        return _echo(await ctx.elicit("Color?", titles))

    @server.tool
    async def pick_many(ctx: Context) -> str:
        """Multiple choice, untitled (nested list shorthand)."""
        return _echo(await ctx.elicit("Colors?", [["red", "green", "blue"]]))

    @server.tool
    async def pick_many_titled(ctx: Context) -> str:
        """Multiple choice, titled."""
        return _echo(await ctx.elicit("Colors?", [{"r": {"title": "Red"}, "b": {"title": "Blue"}}]))

    @server.tool
    async def count(ctx: Context) -> str:
        """A scalar (wrapped by fastmcp in a "value" field)."""
        return _echo(await ctx.elicit("How many?", int))

    @server.tool
    async def confirm(ctx: Context) -> str:
        """A yes/no question."""
        return _echo(await ctx.elicit("Sure?", bool))

    # Asking nothing, for `srv.fn` (tools as functions): typed arguments and typed results.
    @server.tool
    def forecast(
        city: Annotated[str, Field(description="The city", min_length=1)],
        days: Annotated[int, Field(ge=1, le=7, description="How many days")] = 3,
        units: Literal["c", "f"] = "c",
    ) -> Forecast:
        """Made-up weather for a few days."""
        return Forecast(city=city, temperatures=[20 + i for i in range(days)], units=units)

    @server.tool(name="add-numbers")
    def add_numbers(a: int, b: int = 1) -> int:
        """Add two numbers (a name that is not an identifier; an int result fastmcp wraps)."""
        return a + b

    @server.prompt(name="team-greeting")
    def team_greeting(department: str, name: str) -> str:
        """Greet a member of a department."""
        return f"Hello {name} of {department}"

    @server.resource("team://{department}/{name}", mime_type="text/plain")
    def team_member(department: str, name: str) -> str:
        """A member of a department."""
        return f"{name} works in {department}"

    server.add_completion_handler(_complete)
    return server


def main() -> None:
    server = build_server()
    if sys.argv[1:] == ["stdio"]:
        server.run("stdio", show_banner=False)
        return
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # before "PORT": connections made meanwhile wait in the backlog instead of failing
    config = uvicorn.Config(server.http_app(), log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
