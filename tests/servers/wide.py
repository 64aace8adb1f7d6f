"""A low-level server whose listings and texts are huge (in-process): what a form's or a view's cost and a
person's screen must stay bounded against (issue 48).

`build_server(n)` lists a tool `wide` whose inputSchema requires `n` string properties (`p0` ...), a resource
template `wide` of `n` variables (`wide://{v0}{v1}...`), and a prompt `wide` of `n` required arguments
(`a0` ...). Beside them, the long texts (`size` characters each): a tool `described` whose description is
that long, a resource `long://row` whose name and description are, a tool `refuse` whose error result is
that long, and a prompt `chatty` answering `n` messages. The tool `raise`, the prompt `refuse` and reading
`refuse://row` fail with an error that long; reading any other URI gives a short text naming it. The
template `broken` is no RFC 6570 template (an unclosed brace, then `size` characters).
"""

from __future__ import annotations

from typing import Any

import mcp_types as t
from mcp.server import Server
from mcp.shared.exceptions import MCPError

SIZE = 1_000_000
"""Characters of each long text."""


def template_text(n: int) -> str:
    """The template of `n` variables: `wide://{v0}{v1}...`."""
    return "wide://" + "".join(f"{{v{i}}}" for i in range(n))


def tool_schema(n: int) -> dict[str, Any]:
    """An inputSchema requiring `n` string properties."""
    names = [f"p{i}" for i in range(n)]
    return {"type": "object", "properties": {p: {"type": "string"} for p in names}, "required": names}


def build_server(n: int = 10_000, size: int = SIZE) -> Server:
    long = "L" * size
    empty: dict[str, Any] = {"type": "object", "properties": {}}
    tools = [
        t.Tool(name="wide", description=f"Requires {n} arguments.", input_schema=tool_schema(n)),
        t.Tool(name="described", description=long, input_schema=empty),
        t.Tool(name="refuse", description="Refuses at length.", input_schema=empty),
        t.Tool(name="raise", description="Fails at length.", input_schema=empty),
    ]
    arguments = [t.PromptArgument(name=f"a{i}", required=True) for i in range(n)]
    prompts = [
        t.Prompt(name="wide", description=f"Takes {n} arguments.", arguments=arguments),
        t.Prompt(name="chatty", description=f"Answers {n} messages."),
        t.Prompt(name="refuse", description="Fails at length."),
    ]

    async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
        return t.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: t.CallToolRequestParams) -> t.CallToolResult:
        if params.name == "refuse":
            return t.CallToolResult(content=[t.TextContent(text=long)], is_error=True)
        if params.name == "raise":
            raise MCPError(-32602, long)
        return t.CallToolResult(content=[t.TextContent(text=f"called {params.name}")])

    async def list_templates(ctx: Any, params: Any) -> t.ListResourceTemplatesResult:
        template = t.ResourceTemplate(name="wide", uri_template=template_text(n))
        broken = t.ResourceTemplate(name="broken", uri_template="broken://{" + long)
        return t.ListResourceTemplatesResult(resource_templates=[template, broken])

    async def list_resources(ctx: Any, params: Any) -> t.ListResourcesResult:
        row = t.Resource(uri="long://row", name=long, description=long)
        return t.ListResourcesResult(resources=[row, t.Resource(uri="refuse://row", name="refused")])

    async def read_resource(ctx: Any, params: t.ReadResourceRequestParams) -> t.ReadResourceResult:
        if str(params.uri).startswith("refuse:"):
            raise MCPError(-32602, long)
        text = f"read {len(str(params.uri))} characters of URI"
        return t.ReadResourceResult(contents=[t.TextResourceContents(uri=str(params.uri), text=text)])

    async def list_prompts(ctx: Any, params: Any) -> t.ListPromptsResult:
        return t.ListPromptsResult(prompts=prompts)

    async def get_prompt(ctx: Any, params: t.GetPromptRequestParams) -> t.GetPromptResult:
        if params.name == "refuse":
            raise MCPError(-32602, long)
        count = n if params.name == "chatty" else 1
        said = [t.TextContent(text=f"message {i}") for i in range(count)]
        return t.GetPromptResult(messages=[t.PromptMessage(role="user", content=c) for c in said])

    return Server(
        "wide",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resource_templates=list_templates,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
