"""An untrusted server that quotes back what it was sent: in errors, progress, logs, later logs.

Every tool asks for a form first (on both protocol generations, through the demo's `converse`), or takes
secret arguments, and then echoes the values the way careless servers do: JSON-escaped, URL- or
HTML-escaped, upper-cased, glued to a word, only in an error's `data`.
"""

from __future__ import annotations

import asyncio
import html
import json
import sys
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import mcp_types as t
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: this checkout's package

from mcp_widgets.demo._asking import Asker, converse

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "word": {"type": "string"}, "pin": {"type": "integer"}},
    "required": ["name", "word", "pin"],
}

ECHOES = ("json", "json-twice", "glued", "upper", "url", "html", "data")
"""How `refuse` quotes the answer back in its error."""


def _echo(how: str, content: dict[str, Any]) -> tuple[str, Any]:
    """The message and data of an error quoting `content` the way `how` says."""
    name, word, pin = str(content.get("name")), str(content.get("word")), content.get("pin")
    if how == "json":
        return f"invalid input {json.dumps(content)}", None
    if how == "json-twice":
        return f"invalid input {json.dumps(json.dumps(content))}", None
    if how == "glued":
        return f"unknown user_{name}_x, word{word}s, pin{pin}0", None
    if how == "upper":
        return f"UNKNOWN USER {name.upper()} ({word.upper()})", None
    if how == "url":
        return f"see https://example.org/why?name={quote_plus(name)}&w={quote_plus(word)}", None
    if how == "html":
        return f"<p>unknown user <b>{html.escape(name)}</b> {html.escape(word)}</p>", None
    return "invalid input", {"input": content, "errors": [{"loc": ["pin"], "input": pin}]}


async def _log(ctx: Context[Any, Any], text: str, *, related: bool = True) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        rid = ctx.request_id if related else None
        sending = ctx.session.send_log_message("info", text, logger="echo", related_request_id=rid)
    await sending


def build_server(name: str = "echoing") -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name)

    @server.tool(description="Asks for a name, a word and a pin, then refuses them, quoting them back.")
    async def refuse(ctx: Context[Any, Any], how: str = "json") -> Any:
        async def body(ask: Asker) -> Any:
            answer = await ask.form("who", "Who are you?", ANSWER_SCHEMA)
            message, data = _echo(how, dict(answer.content or {}))
            raise MCPError(code=t.INVALID_PARAMS, message=message, data=data)

        return await converse(ctx, body)

    @server.tool(description="Asks for a name, then reports progress and logs quoting it.")
    async def progress(ctx: Context[Any, Any]) -> Any:
        async def body(ask: Asker) -> Any:
            answer = await ask.form("who", "Who are you?", ANSWER_SCHEMA)
            name = str((answer.content or {}).get("name"))
            await ctx.report_progress(1, 2, f"looking up {json.dumps(name)}")
            await _log(ctx, f"found {name}")
            await ctx.report_progress(2, 2, f"checked {name.upper()}")
            return "ok"

        return await converse(ctx, body)

    @server.tool(description="Asks for a name, then greets it (the result may echo it: it is the answer).")
    async def greet(ctx: Context[Any, Any]) -> Any:
        async def body(ask: Asker) -> Any:
            answer = await ask.form("who", "Who are you?", ANSWER_SCHEMA)
            return f"hello {str((answer.content or {}).get('name')).upper()}"

        return await converse(ctx, body)

    @server.tool(description="Asks for a name, returns, then logs it when no call is in flight (2025-11-25).")
    async def log_later(ctx: Context[Any, Any]) -> str:
        rid = ctx.request_id
        answer = await ctx.session.elicit_form("Who are you?", ANSWER_SCHEMA, related_request_id=rid)
        name = str((answer.content or {}).get("name"))

        async def later() -> None:
            await asyncio.sleep(0.05)
            await _log(ctx, f"good bye {name}", related=False)

        asyncio.get_running_loop().create_task(later())
        return "ok"

    @server.tool(description="Signs in, and refuses the credentials quoting them back.")
    async def login(user: str, password: SecretStr, api_key: str = "") -> str:
        raise MCPError(
            code=t.INVALID_PARAMS,
            message=f"{user}: wrong password {password.get_secret_value()!r} for key {api_key}",
            data={"password": password.get_secret_value(), "api_key": api_key},
        )

    @server.resource("records://{patient}", description="A patient's record; asks why (2025-11-25).")
    async def record(patient: str, ctx: Context[Any, Any]) -> str:
        answer = await ctx.session.elicit_form(
            "Why do you read it?", {"type": "object", "properties": {"why": {"type": "string"}}}
        )
        return f"record of {patient}: {answer.action}"

    return server


if __name__ == "__main__":  # `python echoing.py`: over stdio
    build_server().run("stdio")
