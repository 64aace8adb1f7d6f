"""`mw.servers(path)` in real JupyterLab as a person uses it: the table of a config's servers, Connect on a
row, and the card asking a VS Code `${input:...}` password, whose value never reaches the saved notebook."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .gallery import shoot_in_both_themes
from .harness import UI_MS, LabServer, NotebookPage, python

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]
SAVE_STATE = "/lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin"


@pytest.fixture
def saving_widget_state(lab_server: LabServer) -> Iterator[None]:
    """JupyterLab writes the widget state into the notebook when it saves (off by default): the worst case."""
    lab_server.api("PUT", SAVE_STATE, {"raw": json.dumps({"saveState": True})})
    try:
        yield
    finally:
        lab_server.api("PUT", SAVE_STATE, {"raw": "{}"})


def write_config(nb_root: Any, name: str) -> str:
    """A VS Code `.vscode/mcp.json`: the stdio demo twice, once plain, once with a key written in clear and
    a password input."""
    demo = {"type": "stdio", "command": str(python()), "args": ["-m", "mcp_widgets.demo"]}
    config = {
        "inputs": [
            {"type": "promptString", "id": "demo-token", "description": "Demo token", "password": True}
        ],
        "servers": {
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
    expect(table.get_by_role("button", name="Connect")).to_have_count(2)
    rows = table.locator(".widget-hbox")
    demo, vault = rows.nth(0), rows.nth(1)
    expect(demo).to_contain_text("demo · stdio")
    expect(vault).to_contain_text("secret written in clear: env API_KEY")
    expect(vault).to_contain_text("asks demo-token")
    assert "sk-clear" not in (table.text_content() or "")  # the table names the key, never its value

    demo.get_by_role("button", name="Connect").click()
    expect(table).to_contain_text("demo: connected", timeout=UI_MS * 4)
    # the row says so, not only the status line
    expect(demo.get_by_role("button", name="Connected")).to_be_disabled()

    vault.get_by_role("button", name="Connect").click()
    card = table.locator(".mcpw-inputs")
    field = card.get_by_label("Demo token")
    expect(field).to_be_visible()
    assert field.get_attribute("type") == "password"
    expect(table).to_contain_text("vault: needs 1 value (below) to connect")
    shoot_in_both_themes(nb, {"servers-table": table})
    field.fill(canary)
    card.get_by_role("button", name="Connect").click()
    expect(table).to_contain_text("vault: connected", timeout=UI_MS * 4)
    expect(vault.get_by_role("button", name="Connected")).to_be_disabled()
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
    assert "vault: connected" in saved
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
