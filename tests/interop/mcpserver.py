"""The interop forms (shapes.json) served by the Python SDK's `MCPServer`, on both protocol generations.

`elicit(shape)` asks the 2026-07-28 way when that is negotiated (an `InputRequiredResult`; the client calls
again with the answer) and the 2025-11-25 way otherwise (`elicitation/create` mid-call). It answers like the
TypeScript server (server.mjs): JSON text {"action", "content", "raw"}, after checking accepted content
against the schema (formats included). `profile` asks through a `Resolve` dependency instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import mcp_types as t
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp_types.version import is_version_at_least
from pydantic import BaseModel

SHAPES: dict[str, Any] = json.loads(Path(__file__).with_name("shapes.json").read_text())
SHAPES.pop("_comment")
SHAPES["everything"] = {
    "properties": {
        **SHAPES["strings"]["properties"],
        **SHAPES["numbers"]["properties"],
        **SHAPES["enums"]["properties"],
    },
    "required": list(SHAPES["strings"]["properties"]),
}


def schema_for(shape: str) -> dict[str, Any]:
    spec = SHAPES[shape]
    return {"type": "object", "title": f"The {shape} form", **spec}


def _text(value: Any, *, error: bool = False) -> t.CallToolResult:
    return t.CallToolResult(content=[t.TextContent(type="text", text=json.dumps(value))], is_error=error)


def _echo(result: t.ElicitResult, schema: dict[str, Any]) -> t.CallToolResult:
    sent = result.model_dump(mode="json", exclude_none=True)
    if result.action == "accept":
        checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        problems = [
            e.message
            for e in jsonschema.Draft202012Validator(schema, format_checker=checker).iter_errors(
                sent.get("content", {})
            )
        ]
        if problems:
            return _text(f"content does not match the schema: {problems}", error=True)
    # json.dumps keeps Python's int/float distinction: "raw" shows the types the client produced.
    raw = json.dumps({"result": sent})
    return _text({"action": result.action, "content": sent.get("content"), "raw": raw})


class Profile(BaseModel):
    name: str
    age: int = 30
    ratio: float = 0.5
    color: Literal["red", "green", "blue"] = "green"
    subscribe: bool = False


async def _ask_profile() -> Elicit[Profile]:
    return Elicit("Who are you?", Profile)


def build_server() -> MCPServer:
    server = MCPServer("py-interop-server")

    @server.tool(description="Ask for a form of the given shape; echo the answer as JSON text.")
    async def elicit(ctx: Context, shape: str) -> t.CallToolResult | t.InputRequiredResult:
        if shape not in SHAPES:
            return _text(f"unknown shape: {shape}", error=True)
        message, schema = f"Please fill in the {shape} form", schema_for(shape)
        if is_version_at_least(ctx.protocol_version or "2025-11-25", "2026-07-28"):
            answer = (ctx.input_responses or {}).get("form")
            if answer is None:
                request = t.ElicitRequest(
                    params=t.ElicitRequestFormParams(message=message, requested_schema=schema)
                )
                return t.InputRequiredResult(input_requests={"form": request}, request_state="asked")
            return _echo(t.ElicitResult.model_validate(answer.model_dump(mode="json")), schema)
        result = await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
        return _echo(result, schema)

    @server.tool(description="Ask through a Resolve dependency; returns the profile as JSON text.")
    async def profile(who: Annotated[Profile, Resolve(_ask_profile)]) -> str:
        return json.dumps(who.model_dump())

    return server
