"""`mw.servers(path)` in real JupyterLab as a person uses it: the table of a config's servers (its header, a
status per row), Connect on a row, the card asking a VS Code `${input:...}` password, whose value never
reaches the saved notebook, and failing servers whose names and stderr hold math: each row keeps its own
reason, shown literally (no MathJax link)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

import pytest

from .gallery import shoot_in_both_themes
from .harness import UI_MS, NotebookPage, python

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]


MATH_ELEMENTS = "mjx-container, .MathJax, .MathJax_Display"
EVIL_NAME = r"$\href{https://evil.example}{here}$"
EVIL_STDERR = r"$\href{https://evil.example}{Re-authenticate here}$"


def failing(stderr: str) -> dict[str, Any]:
    """A stdio server that writes `stderr` and exits before the handshake."""
    code = f"import sys; sys.stderr.write({stderr!r} + '\\n'); sys.exit(1)"
    return {"type": "stdio", "command": str(python()), "args": ["-c", code]}


def write_config(nb_root: Any, name: str, servers: dict[str, Any] | None = None) -> str:
    """A VS Code `.vscode/mcp.json`: the stdio demo twice, once plain, once with a key written in clear and
    a password input (or `servers`)."""
    demo = {"type": "stdio", "command": str(python()), "args": ["-m", "mcp_widgets.demo"]}
    config = {
        "inputs": [
            {"type": "promptString", "id": "demo-token", "description": "Demo token", "password": True}
        ],
        "servers": servers
        or {
            "demo": demo,
            "vault": {
                **demo,
                "env": {"API_KEY": "sk-clear-0123456789", "DEMO_TOKEN": "${input:demo-token}"},
            },
        },
    }
    path = nb_root / name / ".vscode" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(config, indent=2))
    return str(path)


@pytest.mark.usefixtures("saving_widget_state")
def test_servers_table_connect_and_password_input(open_notebook: Any) -> None:
    from playwright.sync_api import expect

    canary = "cnry" + secrets.token_hex(8)
    path = write_config(open_notebook.server.root, open_notebook.name)
    nb = open_notebook(
        [
            f"import mcp_widgets as mw\ntable = mw.servers({path!r})\ntable",
            # the canary's reverse in the source, so the cell itself does not hold it
            "import ipywidgets\n"
            f"canary = {canary[::-1]!r}[::-1]\n"
            "states = [repr(w.get_state()) for w in ipywidgets.Widget.widgets.values()]\n"
            "print('in widget state:', any(canary in state for state in states))\n"
            "print('connected:', sorted(table.connected))",
            "for srv in table.connected.values():\n    srv.close()",
        ]
    )
    nb.run(0)
    nb.wait_done(0)
    table = nb.output(0).locator(".mcpw-servers")
    for header in ("Name", "Kind", "Where", "Notes", "Status"):
        expect(table.get_by_text(header, exact=True)).to_be_visible()
    buttons = table.locator(".mcpw-servers-grid > .widget-button")
    expect(buttons).to_have_count(2)
    demo, vault = buttons.nth(0), buttons.nth(1)
    statuses = table.locator(".mcpw-server-status")
    expect(table.get_by_text("demo", exact=True)).to_be_visible()
    expect(table).to_contain_text("secret written in clear: env API_KEY")
    expect(table).to_contain_text("asks demo-token")
    assert "sk-clear" not in (table.text_content() or "")  # the table names the key, never its value

    demo.click()
    expect(table).to_contain_text('demo connected: table["demo"] is the server', timeout=UI_MS * 4)
    # the row says so, not only the status line
    expect(demo).to_have_text("Connected")
    expect(demo).to_be_disabled()
    expect(statuses.nth(0)).to_have_text("✓ connected")

    vault.click()
    card = table.locator(".mcpw-inputs")
    field = card.get_by_label("Demo token")
    expect(field).to_be_visible()
    assert field.get_attribute("type") == "password"
    expect(table).to_contain_text("vault: needs 1 value (below) to connect")
    expect(vault).to_be_disabled()  # while its card is open
    shoot_in_both_themes(nb, {"servers-table": table})
    field.fill(canary)
    card.get_by_role("button", name="Connect").click()
    expect(table).to_contain_text('vault connected: table["vault"] is the server', timeout=UI_MS * 4)
    expect(vault).to_have_text("Connected")
    expect(vault).to_be_disabled()
    expect(card).to_contain_text("1 value given")
    expect(card.locator("input")).to_have_count(0)

    nb.run(1)
    nb.wait_done(1)
    expect(nb.stdout(1)).to_contain_text("in widget state: False")
    expect(nb.stdout(1)).to_contain_text("connected: ['demo', 'vault']")
    nb.run_command("docmanager:save")
    expect(nb.page.locator(".jp-mod-dirty")).to_have_count(0)
    saved = (nb.server.root / nb.path).read_text()
    assert "application/vnd.jupyter.widget-state+json" in saved  # the widget state was saved
    assert 'vault connected: table[\\"vault\\"]' in saved
    assert canary not in saved
    assert canary not in nb.server.log_tail(10**7)
    nb.run(2)
    nb.wait_done(2)


@pytest.mark.usefixtures("saving_widget_state")
def test_connect_by_name_asks_the_password_in_the_cell(open_notebook: Any) -> None:
    """`await mw.connect(name, config=path)`: the inputs card in the calling cell, answered by a person."""
    from playwright.sync_api import expect

    canary = "cnry" + secrets.token_hex(8)
    path = write_config(open_notebook.server.root, open_notebook.name)
    nb = open_notebook(
        [
            "import mcp_widgets as mw\n"
            f"srv = await mw.connect('vault', config={path!r})\n"
            "print(srv.name, 'ready')",
            "srv.close()",
        ]
    )
    nb.run(0)
    card = nb.output(0).locator(".mcpw-inputs")
    field = card.get_by_label("Demo token")
    expect(field).to_be_visible(timeout=UI_MS * 2)
    assert field.get_attribute("type") == "password"
    expect(card).to_contain_text("vault needs 1 value")
    shoot_in_both_themes(nb, {"inputs-card": card})
    field.fill(canary)
    card.get_by_role("button", name="Connect").click()
    nb.wait_done(0, timeout=UI_MS * 4)
    expect(nb.stdout(0)).to_contain_text("vault ready")
    expect(card).to_contain_text("1 value given")
    expect(card.locator("input")).to_have_count(0)
    nb.run_command("docmanager:save")
    expect(nb.page.locator(".jp-mod-dirty")).to_have_count(0)
    saved = (nb.server.root / nb.path).read_text()
    assert "1 value given" in saved and "application/vnd.jupyter.widget-state+json" in saved
    assert canary not in saved
    assert canary not in nb.server.log_tail(10**7)
    nb.run(1)
    nb.wait_done(1)


def test_failing_rows_keep_their_own_reasons_shown_literally(open_notebook: Any) -> None:
    """#40, #42: a server named with math whose stderr holds a MathJax link, and a second failing server:
    each row keeps its own reason, the status line and the rows read as written, and nothing is typeset (a
    stock Label with math, typeset in the same page afterwards, shows MathJax ran)."""
    from playwright.sync_api import expect

    servers = {EVIL_NAME: failing(EVIL_STDERR), "second": failing("second reason")}
    path = write_config(open_notebook.server.root, open_notebook.name, servers)
    nb = open_notebook(
        [
            f"import mcp_widgets as mw\ntable = mw.servers({path!r})\ntable",
            "import ipywidgets as w; display(w.Label(value=r'control $y$'))",
        ]
    )
    nb.run(0)
    nb.wait_done(0)
    table = nb.output(0).locator(".mcpw-servers")
    buttons = table.locator(".mcpw-servers-grid > .widget-button")
    statuses = table.locator(".mcpw-server-status")
    expect(table.get_by_text(EVIL_NAME, exact=True)).to_be_visible()
    buttons.nth(0).click()
    expect(statuses.nth(0)).to_contain_text("✗ failed: ", timeout=UI_MS * 4)
    status_line = table.locator(".widget-label").last
    expect(status_line).to_contain_text(f"{EVIL_NAME} failed: could not connect to")
    buttons.nth(1).click()
    expect(statuses.nth(1)).to_contain_text("✗ failed: ", timeout=UI_MS * 4)
    expect(status_line).to_contain_text("second failed: could not connect to 'second'")
    # each row its own reason, the first's stderr as written
    expect(statuses.nth(0)).to_contain_text(EVIL_STDERR)
    expect(statuses.nth(1)).to_contain_text("second reason")
    assert "second reason" not in (statuses.nth(0).text_content() or "")
    assert "Re-authenticate" not in (statuses.nth(1).text_content() or "")
    for i in range(2):  # ready to try again
        expect(buttons.nth(i)).to_have_text("Connect")
        expect(buttons.nth(i)).to_be_enabled()
    nb.run(1)
    nb.wait_done(1)
    expect(nb.output(1).locator("mjx-container")).to_have_count(1, timeout=UI_MS * 2)  # MathJax has run
    expect(table.locator(MATH_ELEMENTS)).to_have_count(0)
    expect(table.locator("a")).to_have_count(0)
    expect(nb.page.locator("a[href='https://evil.example']")).to_have_count(0)
    shoot_in_both_themes(nb, {"servers-table-failed": table})
