"""What a server offers, as tables: `srv.tools`, `srv.resources`, `srv.prompts`, and `srv.info`.

Against the real demo server and small real servers written here (MCPServer, and the low-level Server for
pagination and missing capabilities), in-process, on both protocol generations.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import mcp_types as t
import pytest
from mcp.server import Server as LowLevelServer
from mcp.server.mcpserver import MCPServer

from mcp_widgets.client import ConnectError, Server, connect, connect_sync
from mcp_widgets.client.listings import CELL, PromptList, ResourceList, ServerInfo, TemplateList, ToolList
from mcp_widgets.core.version import __version__
from mcp_widgets.demo import create_server

MODES = ["auto", "legacy"]
GENERATION = {"auto": "2026-07-28", "legacy": "2025-11-25"}
HOSTILE = '<script>alert(1)</script> "quoted" & <b>bold</b>'


def assert_escaped(page: str) -> None:
    """No server markup survives in `page`; it shows as text."""
    assert "<script" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page


def hostile_server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        "hostile", title=HOSTILE, version="9.9", instructions=f"Hello {HOSTILE}"
    )

    @server.tool(title=HOSTILE, description=f"{HOSTILE}\nsecond line")
    async def sneaky(a: int, b: str = "") -> str:
        return ""

    @server.resource("data://thing", title=HOSTILE, description=HOSTILE, mime_type="text/<html>")
    def thing() -> str:
        return "x"

    @server.resource("data://items/{item}", name="item", title="An item", description=HOSTILE)
    def item(item: str) -> str:
        return item

    @server.prompt(title=HOSTILE, description=HOSTILE)
    def greet(who: str, mood: str = "happy") -> str:
        return f"Hi {who}, {mood}"

    return server


# --------------------------------------------------------------------------- the demo server


@pytest.mark.parametrize("mode", MODES)
def test_demo_listings(mode: str) -> None:
    with connect_sync(create_server(), mode=mode) as srv:
        assert isinstance(srv.tools, ToolList) and "echo_elicit" in [tool.name for tool in srv.tools]
        assert all(isinstance(tool, t.Tool) for tool in srv.tools)

        resources = srv.resources
        assert isinstance(resources, ResourceList)
        assert [r.name for r in resources] == ["dice", "files", "file"]  # dice: the roll_dice app
        assert [r.uri_template for r in resources.templates] == ["demo://files/{name}"]
        text = repr(resources)
        assert text.splitlines()[0].split() == ["uri", "name", "title", "mime", "type", "description"]
        assert "demo://files/{name}" in text and "application/json" in text

        # The templates alone: a table too (not a list of ResourceTemplate(...) reprs).
        templates = resources.templates
        assert isinstance(templates, TemplateList) and templates == [resources[-1]]
        lines = repr(templates).splitlines()
        assert lines[0].split() == ["uri", "template", "name", "title", "mime", "type", "description"]
        assert lines[2].startswith("demo://files/{name}  file") and len(lines) == 3
        assert "ResourceTemplate(" not in repr(templates)
        assert "<th style='text-align:left;vertical-align:top'>uri template</th>" in templates._repr_html_()
        assert repr(TemplateList()) == "(no resource templates)"

        prompts = srv.prompts
        assert isinstance(prompts, PromptList) and [p.name for p in prompts] == ["tidy_up", "explain_tool"]
        row = next(line for line in repr(prompts).splitlines() if line.startswith("explain_tool"))
        assert row.endswith("tool, audience?")  # `?`: optional, as for a tool's inputs

        # The listings are real SDK objects the server can be asked about.
        files = next(r for r in resources if r.name == "files")
        read = srv.read_resource_sync(str(files.uri))
        assert '"notes.txt"' in read.contents[0].text


@pytest.mark.parametrize("mode", MODES)
def test_demo_info(mode: str) -> None:
    with connect_sync(create_server(), mode=mode) as srv:
        info = srv.info
    assert isinstance(info, ServerInfo)
    assert (info.name, info.title, info.version) == ("mcp-widgets-demo", "mcp-widgets demo", __version__)
    assert info.protocol_version == GENERATION[mode] == srv.protocol_version
    extensions = ["extensions"] if mode == "auto" else []  # the apps extension, declared on 2026-07-28
    assert [name for name, _ in info.capability_list()] == ["prompts", "resources", "tools", *extensions]
    text = repr(info)
    assert re.search(rf"^protocol\s+{GENERATION[mode]}$", text, re.M)
    assert re.search(r"^capabilities\s+prompts.*; resources.*; tools", text, re.M)
    assert "instructions:\n  A demo server for MCP elicitation" in text
    page = info._repr_html_()
    assert "<th style='text-align:left;vertical-align:top'>protocol</th>" in page and GENERATION[mode] in page
    assert "echo_elicit: asks with any requestedSchema" in page
    # Still there after close (a snapshot), for a notebook that looks back.
    assert srv.info is info


def test_capability_options_read_as_words() -> None:
    caps = t.ServerCapabilities(
        resources=t.ResourcesCapability(subscribe=True, list_changed=False),
        tools=t.ToolsCapability(list_changed=True),
        logging={},
        experimental={"fancy": {"level": 2}},
    )
    info = ServerInfo.from_session(None, "2026-07-28", caps, None)
    assert dict(info.capability_list()) == {
        "experimental": "fancy [level]",
        "logging": "",
        "resources": "subscribe",
        "tools": "list changed",
    }
    text = repr(info)
    assert "name          (not given)" in text and "version       (not given)" in text
    assert "instructions" not in text
    assert "resources (subscribe)" in text and "logging;" in text


# --------------------------------------------------------------------------- server text is shown, never run


@pytest.mark.parametrize("mode", MODES)
def test_every_listing_escapes_server_text(mode: str) -> None:
    with connect_sync(hostile_server(), mode=mode) as srv:
        for listing in (srv.tools, srv.resources, srv.resources.templates, srv.prompts):
            page = listing._repr_html_()
            assert_escaped(page)
            # Hover text (the whole description) is an attribute: quotes must not end it early.
            assert '"quoted"' not in page and "&quot;quoted&quot;" in page
            # JupyterLab right-aligns cells unless told: every cell reads from the left, from its top.
            cells = page.count("<td ") + page.count("<th ")
            assert cells and page.count("style='text-align:left;vertical-align:top'") == cells
        assert "text/&lt;html&gt;" in srv.resources._repr_html_()
        assert_escaped(srv.info._repr_html_())
        assert "9.9" in repr(srv.info)
        # The text repr is plain text: shown as is (nothing interprets it), one line per item.
        assert HOSTILE[:CELL] in repr(srv.tools).replace("…", "")
        assert len(repr(srv.tools).splitlines()) == 3


def test_control_characters_are_shown_not_obeyed() -> None:
    # A terminal escape (clear screen) and a bidi override could disguise what a tool is.
    tricky = "safe\x1b[2J tool \u202eexe.txt"
    tools = ToolList([t.Tool(name="x", title=tricky, description=tricky, input_schema={"type": "object"})])
    info = ServerInfo.from_session(None, "2026-07-28", t.ServerCapabilities(), f"line one\n{tricky}")
    for shown in (repr(tools), tools._repr_html_(), repr(info), info._repr_html_()):
        assert "\x1b" not in shown and "\u202e" not in shown
        assert "safe\\x1b[2J tool U+202Eexe.txt" in shown


def test_long_text_is_clipped_in_text_but_whole_in_html() -> None:
    server: MCPServer[Any] = MCPServer("long")
    description = "word " * 200

    @server.tool(description=description + "\nsecond line")
    async def wordy() -> str:
        return ""

    @server.prompt(description=description)
    def chatty() -> str:
        return ""

    with connect_sync(server) as srv:
        for listing in (srv.tools, srv.prompts):
            line = repr(listing).splitlines()[2]
            assert "word word" in line and "…" in line and len(line) < 2 * CELL + 40
            assert description.strip() in listing._repr_html_()
        assert "second line" not in repr(srv.tools)
        assert "second line" in srv.tools._repr_html_()  # in the row's hover text


def test_tool_inputs_read_common_schema_shapes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "plain": {"type": "string"},
            "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            "color": {"$ref": "#/$defs/Color"},
            "either": {"type": ["number", "string"]},
            "pick": {"enum": ["a", "b"]},
            "nested": {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
            "whatever": {},
        },
        "required": ["plain", "color"],
    }
    tools = ToolList([t.Tool(name="shapes", input_schema=schema)])
    assert tools.rows()[0][3] == (
        "plain: string, maybe: integer?, color: Color, either: number|string?, pick: enum?, nested: A|B?, "
        "whatever: any?"
    )


def test_empty_listings_say_so() -> None:
    for listing, noun in ((ToolList(), "tools"), (ResourceList(), "resources"), (PromptList(), "prompts")):
        assert repr(listing) == f"(no {noun})"
        assert noun in listing._repr_html_()
        assert listing == []


# --------------------------------------------------------------------------- capabilities, pages, refresh


def tools_only_server() -> LowLevelServer[Any]:
    async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
        return t.ListToolsResult(tools=[t.Tool(name="only", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: t.CallToolRequestParams) -> t.CallToolResult:
        return t.CallToolResult(content=[t.TextContent(text="ok")])

    return LowLevelServer("tools-only", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("mode", MODES)
def test_a_server_without_resources_or_prompts_connects(mode: str) -> None:
    with connect_sync(tools_only_server(), mode=mode) as srv:
        assert [tool.name for tool in srv.tools] == ["only"]
        assert srv.resources == [] and srv.prompts == []
        assert repr(srv.resources) == "(no resources)"
        assert [name for name, _ in srv.info.capability_list()] == ["tools"]

        async def relist() -> tuple[ResourceList, PromptList]:
            return await srv.list_resources(), await srv.list_prompts()

        assert asyncio.run(relist()) == ([], [])


def paged_server(pages: int, *, templates: bool = True) -> LowLevelServer[Any]:
    """Resources, resource templates and prompts, each listed `pages` pages long, one item a page."""

    def page_of(params: t.PaginatedRequestParams | None) -> tuple[int, str | None]:
        index = int(params.cursor) if params is not None and params.cursor else 0
        return index, str(index + 1) if index + 1 < pages else None

    async def list_resources(ctx: Any, params: Any) -> t.ListResourcesResult:
        index, cursor = page_of(params)
        return t.ListResourcesResult(
            resources=[t.Resource(name=f"r{index}", uri=f"data://{index}")], next_cursor=cursor
        )

    async def list_templates(ctx: Any, params: Any) -> t.ListResourceTemplatesResult:
        index, cursor = page_of(params)
        template = t.ResourceTemplate(name=f"t{index}", uri_template=f"data://{index}/{{x}}")
        return t.ListResourceTemplatesResult(resource_templates=[template], next_cursor=cursor)

    async def list_prompts(ctx: Any, params: Any) -> t.ListPromptsResult:
        index, cursor = page_of(params)
        argument = t.PromptArgument(name="must", required=True)
        return t.ListPromptsResult(
            prompts=[t.Prompt(name=f"p{index}", arguments=[argument])], next_cursor=cursor
        )

    async def read_resource(ctx: Any, params: Any) -> t.ReadResourceResult:
        return t.ReadResourceResult(contents=[])

    return LowLevelServer(
        "paged",
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates if templates else None,
        on_list_prompts=list_prompts,
        on_read_resource=read_resource,
    )


@pytest.mark.parametrize("mode", MODES)
def test_listings_follow_every_page(mode: str) -> None:
    with connect_sync(paged_server(3), mode=mode) as srv:
        assert [r.name for r in srv.resources] == ["r0", "r1", "r2", "t0", "t1", "t2"]
        assert [p.name for p in srv.prompts] == ["p0", "p1", "p2"]
        assert repr(srv.prompts).splitlines()[2].endswith("must")  # required: no `?`
        assert srv.tools == []  # no tools capability: nothing asked, no error


def test_resources_without_template_listing() -> None:
    # A server that never implemented resources/templates/list answers it with "method not found".
    with connect_sync(paged_server(1, templates=False)) as srv:
        assert [r.name for r in srv.resources] == ["r0"]


def test_list_methods_refresh_the_properties() -> None:
    asyncio.run(refresh_the_properties())


async def refresh_the_properties() -> None:
    server = create_server()
    async with connect(server) as srv:
        assert "late" not in [p.name for p in srv.prompts]

        @server.prompt(description="Added after the client connected")
        def late() -> str:
            return "late"

        @server.resource("demo://late", name="late")
        def late_resource() -> str:
            return "late"

        prompts = await srv.list_prompts()
        assert "late" in [p.name for p in prompts] and srv.prompts is prompts
        resources = await srv.list_resources()
        assert "demo://late" in [str(r.uri) for r in resources if isinstance(r, t.Resource)]
        assert srv.resources is resources
        assert await srv.list_tools() == srv.tools


def test_info_needs_a_connection_first() -> None:
    with pytest.warns(DeprecationWarning, match=r"never connects: use mw\.connect"):
        server = Server(create_server())  # built directly: it warns, and it never connects
    with pytest.raises(ConnectError, match="not connected"):
        server.info  # noqa: B018
