"""A demo MCP server whose tools ask questions, on both protocol generations.

On 2026-07-28 a tool cannot send a request mid-call: it answers with an `InputRequiredResult` and the client
calls again with the answers (the body runs again each round; earlier answers ride `request_state`). On
2025-11-25 the tool sends `elicitation/create` and waits. `Asker` hides the difference so each tool reads
as straight-line code. Every tool returns one JSON text: what the client answered, per question.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, Any

import anyio
import mcp_types as t
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import MCPError
from mcp_types.version import is_version_at_least
from pydantic import BaseModel

NAME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name", "minLength": 1}},
    "required": ["name"],
}
PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
        "color": {"type": "string", "enum": ["red", "green", "blue"], "default": "green"},
        "subscribe": {"type": "boolean", "default": False},
    },
    "required": ["name"],
}
DEFAULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "size": {"type": "integer", "default": 3},
        "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
        "fast": {"type": "boolean", "default": True},
    },
    "required": ["size"],
}
CONFIRM_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
BAD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"address": {"type": "object", "properties": {"street": {"type": "string"}}}},
}


class _NeedInput(Exception):
    def __init__(self, result: t.InputRequiredResult) -> None:
        self.result = result


class Asker:
    """Ask questions the way the negotiated protocol wants."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        version = ctx.protocol_version or "2025-11-25"
        self.modern = is_version_at_least(version, "2026-07-28")
        self.known: dict[str, Any] = json.loads(ctx.request_state or "{}") if self.modern else {}
        for key, resp in (ctx.input_responses or {}).items():
            self.known[key] = resp.model_dump(mode="json", exclude_none=True)

    def _request(self, message: str, schema: dict[str, Any]) -> t.ElicitRequest:
        return t.ElicitRequest(params=t.ElicitRequestFormParams(message=message, requested_schema=schema))

    async def ask(self, key: str, message: str, schema: dict[str, Any]) -> dict[str, Any]:
        """One question: the client's answer as a JSON dict, or {"error": code, "message": ...}."""
        return (await self.ask_all({key: (message, schema)}))[key]

    async def ask_all(self, questions: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
        """Several questions at once (one round, or concurrent requests on 2025-11-25)."""
        if self.modern:
            missing = {k: self._request(m, s) for k, (m, s) in questions.items() if k not in self.known}
            if missing:
                raise _NeedInput(
                    t.InputRequiredResult(input_requests=missing, request_state=json.dumps(self.known))
                )
            return {k: self.known[k] for k in questions}
        answers: dict[str, dict[str, Any]] = {}

        async def one(key: str, message: str, schema: dict[str, Any]) -> None:
            try:
                result = await self.ctx.session.elicit_form(
                    message, schema, related_request_id=self.ctx.request_id
                )
                answers[key] = result.model_dump(mode="json", exclude_none=True)
            except MCPError as exc:
                answers[key] = {"error": exc.code, "message": exc.error.message}

        async with anyio.create_task_group() as tg:
            for key, (message, schema) in questions.items():
                tg.start_soon(one, key, message, schema)
        return answers


def _text(value: Any) -> t.CallToolResult:
    return t.CallToolResult(content=[t.TextContent(type="text", text=json.dumps(value, sort_keys=True))])


def parse(result: t.CallToolResult) -> Any:
    """The JSON a demo tool returned."""
    block = result.content[0]
    assert isinstance(block, t.TextContent)
    return json.loads(block.text)


class Nick(BaseModel):
    nick: str


async def _ask_nick() -> Elicit[Nick]:
    return Elicit("Pick a nickname", Nick)


def build_server(name: str = "demo") -> MCPServer:
    """The demo server; `name` is what it calls itself."""
    server = MCPServer(name)

    @server.tool(title="Echo", description="Returns its argument; asks nothing.")
    async def echo(text: str) -> str:
        return text

    @server.tool(description="Asks for a name.")
    async def ask_name(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        try:
            return _text(await Asker(ctx).ask("name", "What is your name?", NAME_SCHEMA))
        except _NeedInput as need:
            return need.result

    @server.tool(description="Asks for a profile (several fields, some with defaults).")
    async def ask_profile(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        try:
            return _text(await Asker(ctx).ask("profile", "Tell us about you", PROFILE_SCHEMA))
        except _NeedInput as need:
            return need.result

    @server.tool(description="Waits `delay` seconds, then asks for a name.")
    async def ask_later(ctx: Context, delay: float = 2.0) -> t.CallToolResult | t.InputRequiredResult:
        asker = Asker(ctx)
        if not ctx.input_responses:
            await anyio.sleep(delay)
        try:
            return _text(await asker.ask("name", "What is your name, at last?", NAME_SCHEMA))
        except _NeedInput as need:
            return need.result

    @server.tool(description="Asks a question whose fields all have defaults.")
    async def ask_defaults(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        try:
            return _text(await Asker(ctx).ask("opts", "Options?", DEFAULTS_SCHEMA))
        except _NeedInput as need:
            return need.result

    @server.tool(description="Asks for a confirmation (no fields).")
    async def confirm(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        try:
            return _text(await Asker(ctx).ask("ok", "Delete everything?", CONFIRM_SCHEMA))
        except _NeedInput as need:
            return need.result

    @server.tool(description="Asks two questions, one after the other.")
    async def ask_twice(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        asker = Asker(ctx)
        try:
            first = await asker.ask("first", "First question", NAME_SCHEMA)
            second = await asker.ask("second", "Second question", CONFIRM_SCHEMA)
            return _text({"first": first, "second": second})
        except _NeedInput as need:
            return need.result

    @server.tool(description="Asks two questions at the same time.")
    async def ask_both(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        try:
            return _text(
                await Asker(ctx).ask_all(
                    {"a": ("Question A", NAME_SCHEMA), "b": ("Question B", DEFAULTS_SCHEMA)}
                )
            )
        except _NeedInput as need:
            return need.result

    @server.tool(description="Sends a schema with a nested object (invalid).")
    async def bad_schema(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        try:
            return _text(await Asker(ctx).ask("addr", "Where do you live?", BAD_SCHEMA))
        except _NeedInput as need:
            return need.result

    @server.tool(description="Asks with a URL-mode request.")
    async def ask_url(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        params = t.ElicitRequestURLParams(message="Sign in", url="https://example.com/login?token=s3cret")
        if is_version_at_least(ctx.protocol_version or "2025-11-25", "2026-07-28"):
            resp = (ctx.input_responses or {}).get("login")
            if resp is None:
                return t.InputRequiredResult(input_requests={"login": t.ElicitRequest(params=params)})
            return _text(resp.model_dump(mode="json", exclude_none=True))
        result = await ctx.session.elicit_url(
            params.message, params.url, "login-1", related_request_id=ctx.request_id
        )
        return _text(result.model_dump(mode="json", exclude_none=True))

    @server.tool(description="Asks through a resolver (both generations).")
    async def resolved(nick: Annotated[Nick, Resolve(_ask_nick)]) -> str:
        return f"hello {nick.nick}"

    @server.tool(description="Asks the 2025-11-25 way only (fails on 2026-07-28).")
    async def legacy_only(ctx: Context) -> str:
        result = await ctx.elicit("Pick a nickname", Nick)
        return result.action

    @server.tool(description="Asks, then gives up after `after` seconds (2025-11-25 withdrawal).")
    async def withdraw(ctx: Context, after: float = 0.5) -> str:
        with anyio.move_on_after(after):
            await ctx.session.elicit_form("Quick!", NAME_SCHEMA, related_request_id=ctx.request_id)
            return "answered"
        return "withdrawn"

    @server.tool(description="Sleeps for `seconds`, asks nothing.")
    async def sleep(seconds: float) -> str:
        await anyio.sleep(seconds)
        return "slept"

    @server.tool(description="The server's process id.")
    async def pid() -> int:
        return os.getpid()

    @server.tool(description="Fails on purpose.")
    async def fail() -> str:
        raise ValueError("this tool always fails")

    @server.resource("demo://motto", description="A fixed text.")
    def motto() -> str:
        return "ask, don't guess"

    @server.prompt(description="A prompt that asks for a name first.")
    async def greeting(ctx: Context) -> t.GetPromptResult | t.InputRequiredResult | str:
        try:
            answer = await Asker(ctx).ask("name", "Who should I greet?", NAME_SCHEMA)
        except _NeedInput as need:
            return need.result
        return f"Greet {answer.get('content', {}).get('name', 'nobody')}"

    return server
