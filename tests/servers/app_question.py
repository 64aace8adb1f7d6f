"""A server that asks its questions with its own app (app-rendered elicitation, SEP-3118), built with the SDK.

It declares `elicitation` in the apps extension. `pick_color` asks for a colour (an enum) and a shade
(1 to 9) with `_meta.ui.resourceUri` naming its picker app; the app shows the server's message and answers
with buttons: a valid answer, an answer the schema refuses, its own Decline. `pick_missing` names an app the
server does not have, `pick_silent` one that never starts, `pick_wrong_type` a page served as `text/html`
(not `text/html;profile=mcp-app`): each must fall back to the plain form. Each tool returns what it was
answered (action and content), so a test sees what the server received.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context, MCPServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcp_widgets.demo._asking import Asker, converse

PICKER = "ui://question/picker.html"
SILENT = "ui://question/silent.html"
WRONG_TYPE = "ui://question/wrong-type.html"
"""A page served as plain `text/html`: no app, whatever its document holds."""
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "color": {"type": "string", "title": "Colour", "enum": ["red", "blue"]},
        "shade": {"type": "integer", "title": "Shade", "minimum": 1, "maximum": 9},
        "note": {"type": "string", "title": "Note", "maxLength": 100},
    },
    "required": ["color"],
}

PICKER_HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>picker</title>
<style>body { font-family: sans-serif; margin: 8px; } button { margin-right: 6px; }</style></head>
<body>
<div id="asked">Waiting for the question…</div>
<button id="red" type="button">Red, shade 3</button>
<button id="bad" type="button">Purple, shade 12</button>
<button id="no" type="button">No thanks</button>
<script>
(() => {
  let question = null;
  let nextId = 1;
  const send = (msg) => window.parent.postMessage({ jsonrpc: "2.0", ...msg }, "*");
  const answer = (result) => { if (question !== null) { send({ id: question, result }); question = null; } };
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const msg = event.data || {};
    if (msg.method === "elicitation/create" && msg.id !== undefined) {
      question = msg.id;
      document.getElementById("asked").textContent = `Asked: ${msg.params.message}`;
    } else if (msg.method === "ui/resource-teardown") {
      send({ id: msg.id, result: {} });
    } else if (msg.id === 1 && msg.result) {
      send({ method: "ui/notifications/initialized", params: {} });
      send({ method: "ui/notifications/size-changed", params: { width: 300, height: 90 } });
    }
  });
  const red = { action: "accept", content: { color: "red", shade: 3 } };
  const bad = { action: "accept", content: { color: "purple", shade: 12 } };
  document.getElementById("red").onclick = () => answer(red);
  document.getElementById("bad").onclick = () => answer(bad);
  document.getElementById("no").onclick = () => answer({ action: "decline" });
  send({ id: nextId++, method: "ui/initialize", params: {
    protocolVersion: "2026-01-26", appInfo: { name: "picker", version: "1" }, appCapabilities: {} } });
})();
</script></body></html>
"""
SILENT_HTML = "<!DOCTYPE html><p>This app never starts.</p>"


class QuestionApps(Apps):
    """The apps extension, declaring app-rendered questions (`elicitation`)."""

    def settings(self) -> dict[str, Any]:
        return {"elicitation": {}}


def build_server(name: str = "question-app") -> MCPServer[Any]:
    apps = QuestionApps()
    apps.add_html_resource(PICKER, PICKER_HTML, name="picker")
    apps.add_html_resource(SILENT, SILENT_HTML, name="silent")
    server = MCPServer(name, extensions=[apps])

    @server.resource(WRONG_TYPE, name="wrong-type", mime_type="text/html")
    def wrong_type() -> str:
        return PICKER_HTML

    async def ask(ctx: Context, uri: str) -> Any:
        async def body(asker: Asker) -> dict[str, Any]:
            meta = {"ui": {"resourceUri": uri}}
            result = await asker.form("color", "Which colour, and how dark?", SCHEMA, meta=meta)
            return {"action": result.action, "content": result.content}

        return await converse(ctx, body)

    @server.tool(name="pick_color", description="Asks for a colour with its picker app.")
    async def pick_color(ctx: Context) -> Any:
        return await ask(ctx, PICKER)

    @server.tool(name="pick_missing", description="Asks with an app the server does not have.")
    async def pick_missing(ctx: Context) -> Any:
        return await ask(ctx, "ui://question/nowhere.html")

    @server.tool(name="pick_silent", description="Asks with an app that never starts.")
    async def pick_silent(ctx: Context) -> Any:
        return await ask(ctx, SILENT)

    @server.tool(name="pick_wrong_type", description="Asks with a page that is not an app (text/html).")
    async def pick_wrong_type(ctx: Context) -> Any:
        return await ask(ctx, WRONG_TYPE)

    return server


if __name__ == "__main__":
    build_server().run("stdio")
