"""A scriptable hostile MCP server (the SDK's `MCPServer`): in-process, or `python hostile.py` over stdio.

Its one tool, `play`, takes a script (JSON) saying what to ask, what to send while it runs and how to end;
whatever the person answered it quotes back as the script says (`ECHOES`), the way careless servers do. The
fuzzer (tests/fuzz) writes the scripts; both protocol generations run them through the demo's `converse`.
"""

from __future__ import annotations

import base64
import html
import json
import sys
import unicodedata
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import mcp_types as t
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: this checkout's package

from mcp_widgets.demo._asking import Asker, converse

ECHOES = (
    "none",
    "plain",
    "json",
    "json-twice",
    "upper",
    "url",
    "html",
    "glued",
    "entities",
    "base64",
    "url-twice",
    "decomposed",
    "fullwidth",
    "zero-width",
)
"""How a step quotes the answers so far next to its own text."""


def echo(how: str, text: str, answers: list[dict[str, Any]]) -> str:
    """`text`, followed by the answers so far quoted the way `how` says."""
    values = [str(v) for content in answers for v in content.values()]
    joined = " ".join(values)
    if how == "none" or not values:
        return text
    quoted = {
        "plain": joined,
        "json": json.dumps(answers),
        "json-twice": json.dumps(json.dumps(answers)),
        "upper": joined.upper(),
        "url": "https://example.org/?q=" + quote_plus(joined),
        "html": html.escape(joined),
        "glued": "x".join(f"user_{v}_" for v in values),
        # The spellings docs/privacy.md says are redacted too (#33):
        "entities": "".join(f"&#{ord(c)};" for c in joined),
        "base64": " ".join(base64.b64encode(v.encode()).decode() for v in values),
        "url-twice": quote(quote(joined, safe=""), safe=""),
        "decomposed": unicodedata.normalize("NFD", joined),
        "fullwidth": "".join(chr(ord(c) + 0xFEE0) if 0x21 <= ord(c) <= 0x7E else c for c in joined),
        "zero-width": " ".join(v[:1] + "\u200b" + v[1:] for v in values),
    }[how]
    return f"{text} {quoted}"


async def _log(ctx: Context[Any, Any], level: str, text: str, *, related: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        rid = ctx.request_id if related else None
        sending = ctx.session.send_log_message(level, text, logger="hostile", related_request_id=rid)
    await sending


async def _step(ctx: Context[Any, Any], step: dict[str, Any], answers: list[dict[str, Any]]) -> None:
    text = echo(step.get("echo", "none"), step.get("text", ""), answers)
    if step["do"] == "progress":
        await ctx.report_progress(step.get("progress", 1), step.get("total"), text)
    elif step["do"] == "log":
        await _log(ctx, step.get("level", "info"), text, related=step.get("related", True))


def build_server(name: str = "hostile", description: str = "Plays a script.") -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name)

    @server.tool(description=description)
    async def play(ctx: Context[Any, Any], script: dict[str, Any]) -> Any:
        async def body(ask: Asker) -> Any:
            answers: list[dict[str, Any]] = []
            for i, question in enumerate(script.get("asks", [])):
                answer = await ask.form(f"q{i}", question["message"], question["schema"])
                answers.append(dict(answer.content or {}))
                # 2026-07-28 runs the body again each round: send the steps only once every answer is in.
            for step in script.get("steps", []):
                await _step(ctx, step, answers)
            end = script.get("end", {})
            text = echo(end.get("echo", "none"), end.get("text", ""), answers)
            if end.get("kind") == "error":
                data = {"input": answers} if end.get("data") else None
                raise MCPError(code=end.get("code", t.INVALID_PARAMS), message=text, data=data)
            if end.get("kind") == "raise":
                raise RuntimeError(text)
            return text

        return await converse(ctx, body)

    return server


if __name__ == "__main__":  # `python hostile.py [name]`: over stdio
    build_server(*sys.argv[1:2]).run("stdio")
