"""MCP Apps in a real JupyterLab (tests/browser/harness.py): a tool's result to its app painted, and an app's
`tools/call` round trip through the relay and the kernel against the same call made directly in the kernel."""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any

from ._report import Row, skipped
from .browser import _missing

GROUP = "apps"
ROOT = Path(__file__).resolve().parents[1]

SETUP = f"""
import sys, time, statistics
sys.path.insert(0, {str(ROOT)!r})
import mcp_widgets as mw
from mcp_widgets.demo import create_server
srv = await mw.connect(create_server(sign_in_port=0), name="bench")
plain = await mw.connect(create_server(sign_in_port=0), name="plain", apps=False)  # no app for its calls
print("ready")
"""
ROLL = "await srv.call_tool('roll_dice', {'count': 3})\nprint(repr(time.time()))"
DIRECT = """
times = []
for _ in range({runs}):
    t = time.perf_counter()
    await plain.call_tool('reroll', {{'count': 3}})
    times.append(time.perf_counter() - t)
print(repr(statistics.median(times) * 1e3))
"""
# In the app's frame: `runs` tools/call round trips, one after another; the median in ms.
ROUND_TRIPS = """
async ([runs, method, params]) => {
  let id = 0;
  const once = () => new Promise((resolve) => {
    const mine = `bench-${++id}`;
    const t0 = performance.now();
    const listen = (event) => {
      if (event.data && event.data.id === mine) {
        window.removeEventListener("message", listen);
        resolve(performance.now() - t0);
      }
    };
    window.addEventListener("message", listen);
    window.parent.postMessage(
      { jsonrpc: "2.0", id: mine, method, params }, "*");
  });
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
"""


def _app_frame(page: Any) -> Any:
    """The app's own frame: a srcdoc frame in the srcdoc frame of ours around it (the sandbox proxy)."""
    return next(
        f
        for f in reversed(page.frames)
        if f.url == "about:srcdoc" and f.parent_frame is not None and f.parent_frame.url == "about:srcdoc"
    )


def run(quick: bool) -> list[Row]:
    if quick:
        return [skipped(GROUP, "--quick skips the browser")]
    why = _missing()
    if why:
        return [skipped(GROUP, why)]
    from playwright.sync_api import expect, sync_playwright

    from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, LabServer, NotebookPage

    runs = 5
    calls = 30
    painted: list[float] = []
    with tempfile.TemporaryDirectory(prefix="mcpw-bench-apps-") as base:
        server = LabServer(Path(base))
        server.start()
        try:
            with sync_playwright() as pw:
                chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS))
                try:
                    page = chromium.new_context(viewport={"width": 1280, "height": 1000}).new_page()
                    direct_cell = DIRECT.format(runs=calls)
                    path = server.write_notebook("bench-apps", [SETUP, ROLL, direct_cell])
                    nb = NotebookPage(page, server, path).open()
                    nb.run(0)
                    nb.wait_done(0, timeout=120_000)
                    expect(nb.stdout(0)).to_contain_text("ready", timeout=30_000)
                    for _ in range(runs + 1):  # the first pays for loading the relay's code: left out
                        nb.run(1)
                        nb.wait_done(1, timeout=30_000)
                        proxy = nb.output(1).frame_locator("iframe.mcp-widgets-app-frame")
                        app = proxy.frame_locator("iframe")
                        expect(app.locator(".die")).to_have_count(3, timeout=30_000)
                        seen = page.evaluate("performance.timeOrigin + performance.now()")
                        result_at = float(nb.stdout(1).inner_text().strip()) * 1e3
                        painted.append(seen - result_at)
                    frame = _app_frame(page)
                    call = {"name": "reroll", "arguments": {"count": 3}}
                    via_app = frame.evaluate(ROUND_TRIPS, [calls, "tools/call", call])
                    ping = frame.evaluate(ROUND_TRIPS, [calls, "ping", {}])
                    nb.run(2)
                    nb.wait_done(2, timeout=60_000)
                    direct = float(nb.stdout(2).inner_text().strip())
                finally:
                    chromium.close()
        finally:
            server.stop()
    return [
        Row(
            GROUP,
            "tool result in the kernel to its app painted",
            statistics.median(painted[1:]),
            note=f"JupyterLab + Chromium, {runs} runs (the app's document read once, then cached)",
        ),
        Row(
            GROUP,
            "an app's tools/call round trip",
            via_app,
            baseline=direct,
            baseline_name="the same call awaited in the kernel (apps=False)",
            note=f"median of {calls}; relay, comm and kernel both ways",
        ),
        Row(
            GROUP,
            "… of which the relay and comm alone (ping)",
            ping,
            note="the kernel answers at once",
        ),
    ]
