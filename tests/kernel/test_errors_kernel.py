"""Errors raised to a person read as one line (docs/troubleshooting.md), in a real kernel, against the
TypeScript SDK's reference server (`@modelcontextprotocol/server-everything`, over stdio): a server's
error, an argument error found before sending, a tool's error through `srv.fn`, a failed connect, a config
that cannot be used, a form asked for by a name the server does not list, a template's values it cannot take.

The cell's error is one line (no traceback through the client, nothing chained), for `await` and the
blocking calls alike; `traceback.print_exc()` prints the cell's own frame and the line; code that catches
gets the type, and the SDK's error as `.cause`. What can be known before sending is refused without a request.
"""

from __future__ import annotations

import re

import pytest

from tests.interop.nodejs import NODE_MODULES, node_or_skip

from .harness import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300), pytest.mark.one_per_mechanism]

EVERYTHING = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
TEMPLATE = "demo://resource/dynamic/text/{resourceId}"  # as srv.resources lists it

SETUP = """
import json, tempfile, traceback
import mcp_widgets as mw
if "srv" not in globals() or not srv.connected:
    srv = mw.connect_sync([{node!r}, {everything!r}, "stdio"], name="everything", timeout=60)
CONFIG = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
json.dump({{"mcpServers": {{"files": {{"command": "true"}}}}}}, CONFIG)
CONFIG.close()

def sent(method):
    return sum(1 for r in srv.wire.records() if r["direction"] == "out" and r.get("method") == method)
"""

ERRORS = {
    "server error, await": (
        "await srv.get_prompt('no-such-prompt')",
        "ServerError",
        "prompt 'no-such-prompt' on 'everything' failed: MCP error -32602: Prompt no-such-prompt not found "
        "(code -32602)",
    ),
    "server error, sync": (
        "srv.get_prompt_sync('no-such-prompt')",
        "ServerError",
        "prompt 'no-such-prompt' on 'everything' failed",
    ),
    "resource error, await": (
        "await srv.read_resource('demo://resource/static/document/no-such.md')",
        "ServerError",
        "on 'everything' failed: MCP error -32602: Resource",
    ),
    "resource error, sync": (
        "srv.read_resource_sync('demo://resource/static/document/no-such.md')",
        "ServerError",
        "(code -32602)",
    ),
    "missing prompt argument, await": (
        "await srv.get_prompt('args-prompt')",
        "TypeError",
        "prompt 'args-prompt' on 'everything' was not sent: it needs the argument 'city'",
    ),
    "missing prompt argument, sync": (
        "srv.get_prompt_sync('args-prompt', {'state': 'NY'})",
        "TypeError",
        "it needs the argument 'city' (it takes city, state (optional))",
    ),
    "prompt argument not text": (
        "await srv.get_prompt('args-prompt', {'city': 7})",
        "TypeError",
        "prompt 'args-prompt' on 'everything' was not sent: its arguments are text, and 'city' is not",
    ),
    "template, await": (f"await srv.read_resource({TEMPLATE!r})", "ValueError", "variable resourceId"),
    "template, sync": (f"srv.read_resource_sync({TEMPLATE!r})", "ValueError", "fill it in first"),
    "template error": (
        f"srv.read_template_sync({TEMPLATE!r}, {{'nope': 1}})",
        "TemplateError",
        "has no variable 'nope' (its variables: 'resourceId')",
    ),
    "tool form not listed": ("srv.form('nope')", "KeyError", "'everything' lists no tool named 'nope'"),
    "prompt form not listed": ("srv.prompt_form('nope')", "KeyError", "lists no prompt named 'nope'"),
    "template form not listed": ("srv.template_form('nope')", "KeyError", "lists no resource template"),
    "fn argument, await": ("await srv.fn.get_sum('two', 1)", "TypeError", "get_sum(): argument 'a'"),
    "fn argument, sync": ("srv.fn.get_sum.sync(1)", "TypeError", "get_sum(): missing a required argument"),
    "fn tool error, await": (
        "await srv.fn.get_resource_reference('Text', 0)",
        "ToolError",
        "get-resource-reference: Invalid resourceId: 0",
    ),
    "fn tool error, sync": (
        "srv.fn.get_resource_reference.sync('Text', 0)",
        "ToolError",
        "Invalid resourceId",
    ),
    "connect, await": (
        "await mw.connect(['/no/such/server-xyz'])",
        "ConnectError",
        "could not connect to 'server-xyz' (stdio)",
    ),
    "connect, sync": ("mw.connect_sync(['/no/such/server-xyz'])", "ConnectError", "could not connect"),
    "connect argument": ("mw.connect_sync(['true'], mode='newest')", "ValueError", "mode must be"),
    "config": (
        "mw.connect_sync('nothing', config=CONFIG.name)",
        "ConfigError",
        "has no server named 'nothing'",
    ),
}


def _setup(frontend: KernelFrontend) -> None:
    node = node_or_skip(EVERYTHING)
    cell = frontend.run(SETUP.format(node=node, everything=str(EVERYTHING)), timeout=120)
    assert cell.status == "ok", (cell.evalue, cell.stderr)


@pytest.mark.reuse_kernel
@pytest.mark.parametrize("case", list(ERRORS))
def test_an_error_is_one_line(frontend: KernelFrontend, case: str) -> None:
    _setup(frontend)
    code, ename, said = ERRORS[case]
    cell = frontend.run(code, timeout=120)
    assert cell.status == "error" and cell.ename == ename, (cell.ename, cell.evalue)
    (line,) = "\n".join(cell.traceback).splitlines()  # the line: no frame, nothing chained
    assert line.startswith(f"\x1b[31m{ename}\x1b[0m: ") and said in line, line
    assert not cell.stderr, cell.stderr
    # Code that catches still gets the type.
    builtin = ename in ("TypeError", "ValueError", "KeyError")
    kind = "ValueError" if ename == "TemplateError" else ename if builtin else f"mw.{ename}"
    catch = f"try:\n    {code}\nexcept {kind}:"
    caught = frontend.run(catch + "\n    print('caught')", timeout=120)
    assert caught.status == "ok" and caught.stdout == "caught\n", (caught.ename, caught.evalue)


PRINTED = {
    "await": "await srv.get_prompt('no-such-prompt')",
    "sync": "srv.get_prompt_sync('no-such-prompt')",
    "fn": "srv.fn.get_sum.sync('two', 1)",
    "connect": "await mw.connect(['/no/such/server-xyz'])",
}


@pytest.mark.reuse_kernel
@pytest.mark.parametrize("case", list(PRINTED))
def test_print_exc_prints_the_cells_frame_and_the_line(frontend: KernelFrontend, case: str) -> None:
    _setup(frontend)
    code = PRINTED[case]
    cell = frontend.run(f"try:\n    {code}\nexcept Exception as e:\n    traceback.print_exc()", timeout=120)
    assert cell.status == "ok", cell.evalue
    lines = [line for line in cell.stderr.splitlines() if not re.fullmatch(r"\s*[\^~]+\s*", line)]
    assert lines[0] == "Traceback (most recent call last):", cell.stderr
    (frame,) = [line for line in lines if line.lstrip().startswith("File ")]  # the cell's, none of ours
    assert "mcp_widgets" not in frame and "site-packages" not in frame, cell.stderr
    assert lines[2].strip() == code
    assert len(lines) == 4, cell.stderr  # the header, the cell's frame and its line, the error's line
    assert "The above exception" not in cell.stderr and "During handling" not in cell.stderr
    assert re.match(r"(mcp_widgets\.[\w.]+\.)?\w+: ", lines[3]), lines[3]


@pytest.mark.reuse_kernel
def test_the_cause_is_kept_as_an_attribute(frontend: KernelFrontend) -> None:
    _setup(frontend)
    code = """
try:
    srv.get_prompt_sync('no-such-prompt')
except mw.ServerError as e:
    print(e.code, type(e.cause).__module__, type(e.cause).__name__, e.cause.error.message)
    print(e.__cause__, e.__context__)
"""
    cell = frontend.run(code, timeout=120)
    assert cell.status == "ok", cell.evalue
    assert cell.stdout.splitlines() == [
        "-32602 mcp.shared.exceptions MCPError MCP error -32602: Prompt no-such-prompt not found",
        "None None",
    ]


@pytest.mark.reuse_kernel
def test_what_can_be_known_is_refused_before_sending(frontend: KernelFrontend) -> None:
    _setup(frontend)
    code = f"""
before = sent("prompts/get"), sent("resources/read")
calls = (
    lambda: srv.get_prompt_sync("args-prompt"),
    lambda: srv.get_prompt_sync("args-prompt", {{"city": 7}}),
    lambda: srv.read_resource_sync({TEMPLATE!r}),
)
for call in calls:
    try:
        call()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
print(sent("prompts/get") - before[0], sent("resources/read") - before[1])
# filled in, both are sent (and answered)
prompt = await srv.get_prompt("args-prompt", {{"city": "Oslo"}})
resource = srv.read_resource_sync({TEMPLATE.replace("{resourceId}", "1")!r})
print(sent("prompts/get") - before[0], sent("resources/read") - before[1], "Oslo" in str(prompt))
"""
    cell = frontend.run(code, timeout=120)
    assert cell.status == "ok", (cell.evalue, cell.traceback)
    refused_prompt, refused_number, refused_template, nothing, both = cell.stdout.splitlines()
    assert refused_prompt == (
        "TypeError prompt 'args-prompt' on 'everything' was not sent: it needs the argument 'city' "
        "(it takes city, state (optional))"
    )
    assert refused_number == (
        "TypeError prompt 'args-prompt' on 'everything' was not sent: its arguments are text, "
        "and 'city' is not"
    )
    assert refused_template == (
        f"ValueError resource {TEMPLATE!r} on 'everything' was not read: its URI still has the template's "
        "variable resourceId: fill it in first (srv.resources.templates lists the templates)"
    )
    assert nothing == "0 0"  # no request went out for either
    assert both == "1 1 True"


@pytest.mark.reuse_kernel
def test_a_servers_text_in_the_line_is_literal(frontend: KernelFrontend) -> None:
    """A tool's error text is the server's: its terminal escapes are written out, never replayed (a notebook
    renders ANSI in an error's lines: colour, or a cleared output)."""
    setup = """
import mcp_widgets as mw
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as Refused
app = MCPServer("hostile")

@app.tool()
def boom() -> str:
    raise Refused("bad \\x1b[2J\\x1b[31mred\\x07")

hostile = mw.connect_sync(app, name="hostile")
"""
    assert frontend.run(setup, timeout=60).status == "ok"
    for code in ("hostile.fn.boom.sync()", "await hostile.fn.boom()"):
        cell = frontend.run(code, timeout=60)
        assert cell.ename == "ToolError", cell.evalue
        (line,) = "\n".join(cell.traceback).splitlines()
        said = "boom: Error executing tool boom: bad \\x1b[2J\\x1b[31mred\\x07"
        assert line == f"\x1b[31mToolError\x1b[0m: {said}", repr(line)
    assert frontend.run("hostile.close()").status == "ok"


@pytest.mark.reuse_kernel
def test_a_background_call_and_a_closed_server_fail_in_one_line(frontend: KernelFrontend) -> None:
    setup = """
import time
import mcp_widgets as mw
from mcp.server.mcpserver import MCPServer
slow = MCPServer("slow")

@slow.tool()
def wait() -> str:
    time.sleep(3)
    return "late"

late = mw.connect_sync(slow, name="slow", timeout=0.3)
"""
    assert frontend.run(setup, timeout=60).status == "ok"
    for code in ("late.call_tool_background('wait').result()", "await late.call_tool_background('wait')"):
        cell = frontend.run(code, timeout=60)
        assert cell.ename == "RequestTimeout", cell.evalue
        (line,) = "\n".join(cell.traceback).splitlines()
        assert line.endswith("tool 'wait' on 'slow' got no answer within 0.3 s"), line
    assert frontend.run("late.close()").status == "ok"
    for code in ("late.call_tool_sync('wait')", "await late.call_tool('wait')"):
        cell = frontend.run(code, timeout=60)
        (line,) = "\n".join(cell.traceback).splitlines()
        assert cell.ename == "ConnectError" and "'slow' is closed, not connected" in line, line
