"""The demo's MCP App: `roll_dice` shows its dice in an app under the call (the SDK's `Apps` helpers).

The app is one HTML document with no dependencies. It speaks the bridge's JSON-RPC over `postMessage` by
hand (`ui/initialize`, then `ui/notifications/initialized`), shows the tool's result when the host sends it,
follows the host's theme, reports its height, has a button that calls the app-only tool `reroll` through the
host, and one that offers the rolls as a CSV file (`ui/download-file`: the host asks the person first). A
client without MCP Apps gets the same tool as text.
"""

from __future__ import annotations

import random
from typing import Any

from mcp.server.apps import Apps

__all__ = ["APP_URI", "dice_app"]

APP_URI = "ui://demo/dice.html"

_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Dice</title>
<style>
  :root { color-scheme: light dark; }
  body {
    margin: 0; padding: 12px 14px;
    font-family: var(--font-sans, system-ui, sans-serif);
    background: var(--color-background-primary, #fff);
    color: var(--color-text-primary, #111);
  }
  body.dark { background: var(--color-background-primary, #111); color: var(--color-text-primary, #eee); }
  .dice { display: flex; gap: 10px; flex-wrap: wrap; margin: 6px 0 10px; }
  .die {
    width: 46px; height: 46px; border-radius: 9px; display: grid; place-items: center;
    font-size: 22px; font-weight: 700;
    border: 2px solid var(--color-border-primary, #888);
    background: var(--color-background-secondary, #f4f4f4);
  }
  .total { font-size: 14px; color: var(--color-text-secondary, #555); }
  button {
    font: inherit; font-size: 13px; padding: 4px 12px; border-radius: 4px; cursor: pointer;
    border: 1px solid var(--color-border-primary, #888);
    background: var(--color-background-tertiary, #eee); color: inherit;
  }
  .status { font-size: 12px; color: var(--color-text-secondary, #666); margin-left: 8px; }
</style>
</head>
<body>
<div class="total" id="total">Waiting for the roll…</div>
<div class="dice" id="dice"></div>
<button id="again" type="button">Roll again</button>
<button id="save" type="button">Save rolls</button><span class="status" id="status"></span>
<script>
(() => {
  let nextId = 1;
  const waiting = new Map();
  let sides = 6, count = 2, last = [];
  const send = (msg) => window.parent.postMessage({ jsonrpc: "2.0", ...msg }, "*");
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    send({ id, method, params });
  });
  const notify = (method, params) => send({ method, params });
  const theme = (ctx) => {
    if (!ctx) return;
    if (ctx.theme) document.body.classList.toggle("dark", ctx.theme === "dark");
    const vars = ctx.styles && ctx.styles.variables;
    if (vars) for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
  };
  const show = (result) => {
    const data = (result && result.structuredContent) || {};
    const rolls = Array.isArray(data.rolls) ? data.rolls : [];
    last = rolls;
    const dice = document.getElementById("dice");
    dice.textContent = "";
    for (const r of rolls) {
      const d = document.createElement("div");
      d.className = "die";
      d.textContent = String(r);
      dice.append(d);
    }
    document.getElementById("total").textContent =
      rolls.length ? `${rolls.length} × d${data.sides}: total ${data.total}` : "No dice.";
    size();
  };
  const size = () => notify("ui/notifications/size-changed", {
    width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
  });
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const msg = event.data || {};
    if (msg.id !== undefined && waiting.has(msg.id) && !msg.method) {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(msg.error.message)); else w.resolve(msg.result);
      return;
    }
    if (msg.method === "ui/notifications/tool-input") {
      const args = (msg.params && msg.params.arguments) || {};
      sides = args.sides || sides; count = args.count || count;
    } else if (msg.method === "ui/notifications/tool-result") {
      show(msg.params);
    } else if (msg.method === "ui/notifications/tool-cancelled") {
      document.getElementById("total").textContent = "The roll was cancelled.";
    } else if (msg.method === "ui/notifications/host-context-changed") {
      theme(msg.params);
    } else if (msg.method === "ui/resource-teardown") {
      send({ id: msg.id, result: {} });
    }
  });
  document.getElementById("again").addEventListener("click", async () => {
    const status = document.getElementById("status");
    status.textContent = "rolling…";
    try {
      show(await request("tools/call", { name: "reroll", arguments: { sides, count } }));
      status.textContent = "";
    } catch (e) {
      status.textContent = `failed: ${e.message}`;
    }
  });
  document.getElementById("save").addEventListener("click", async () => {
    const text = "roll,value\\n" + last.map((v, i) => `${i + 1},${v}`).join("\\n") + "\\n";
    const resource = { uri: "ui://demo/rolls.csv", mimeType: "text/csv", text };
    const answer = await request("ui/download-file", { contents: [{ type: "resource", resource }] });
    document.getElementById("status").textContent = answer.isError ? "not saved" : "saved";
  });
  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "dice", version: "1.0.0" },
    appCapabilities: { availableDisplayModes: ["inline"] },
  }).then((result) => {
    theme(result.hostContext);
    notify("ui/notifications/initialized", {});
    size();
  });
})();
</script>
</body>
</html>
"""


def _roll(sides: int, count: int) -> dict[str, Any]:
    if not 2 <= sides <= 100 or not 1 <= count <= 10:
        raise ValueError("sides must be 2 to 100 and count 1 to 10")
    rolls = [random.randint(1, sides) for _ in range(count)]
    return {"sides": sides, "rolls": rolls, "total": sum(rolls)}


def dice_app() -> Apps:
    """The demo's apps extension: `roll_dice` (with its app) and `reroll` (for the app only)."""
    apps = Apps()

    @apps.tool(
        resource_uri=APP_URI,
        name="roll_dice",
        title="Roll dice",
        description="Roll some dice; shown as an MCP App where the client hosts apps (else as text).",
        structured_output=True,
    )
    def roll_dice(sides: int = 6, count: int = 2) -> dict[str, Any]:
        return _roll(sides, count)

    @apps.tool(
        resource_uri=APP_URI,
        visibility=["app"],
        name="reroll",
        title="Roll again",
        description="Roll the same dice again: called by the dice app (its visibility is app only).",
        structured_output=True,
    )
    def reroll(sides: int = 6, count: int = 2) -> dict[str, Any]:
        return _roll(sides, count)

    apps.add_html_resource(APP_URI, _HTML, name="dice", title="Dice", prefers_border=True)
    return apps
