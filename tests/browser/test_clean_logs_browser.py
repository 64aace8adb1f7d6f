"""What JupyterLab's log console and the page console say while a person works through the shipped
notebooks: nothing. Every answered form, every call that ends and every playground edit closes widget
models; none of that may make the kernel or the page log an error (a red badge reads as broken)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from .conftest import OpenNotebook
from .harness import ROOT, UI_MS, NotebookPage
from .test_voila_browser import put_caret

pytestmark = pytest.mark.browser

NOTEBOOKS = ROOT / "notebooks"
OURS = re.compile(r"comm|widget|mcp", re.IGNORECASE)
"""A log entry mentioning any of these is ours to fix (no allow-list)."""


def open_copy(open_notebook: OpenNotebook, name: str) -> NotebookPage:
    """notebooks/<name>.ipynb, copied to the server's root (the notebook's own cwd is notebooks/)."""
    target = f"{open_notebook.name}-{name}.ipynb"
    shutil.copyfile(NOTEBOOKS / f"{name}.ipynb", open_notebook.server.root / target)
    path = Path(target)
    return NotebookPage(open_notebook._page(), open_notebook.server, str(path)).open()


def code_cells(name: str) -> list[str]:
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def log_entries(nb: NotebookPage) -> list[str]:
    """The entries of JupyterLab's log console for this notebook (opened through its command)."""
    from playwright.sync_api import expect

    nb.run_command("logconsole:open")
    panel = nb.page.locator(".jp-LogConsolePanel")
    expect(panel).to_be_visible(timeout=UI_MS)
    entries = panel.locator(".jp-OutputArea-child")
    return [text.strip() for text in entries.all_inner_texts() if text.strip()]


def test_the_playground_leaves_every_log_clean(open_notebook: OpenNotebook) -> None:
    """(The quickstart's logs are read at the end of test_keys_browser.py's Shift+Enter walk through it.)"""
    from playwright.sync_api import expect

    pg = open_copy(open_notebook, "schema_playground")
    for index, _source in enumerate(code_cells("schema_playground")):  # previews wait, nothing asks
        pg.run(index)
        pg.wait_done(index)
    editor = pg.output(1).locator("textarea").first
    put_caret(editor, '"title": "', select="Title")
    form = pg.output(1).locator(".mcp-widgets-form")
    pg.page.keyboard.type("Headline", delay=60)  # every keystroke is valid JSON: a new form each time
    expect(form.get_by_label("Headline")).to_be_visible()
    editor.press("Control+End")
    editor.press("Backspace")  # not JSON: the last form stays
    expect(pg.output(1).get_by_text("Not valid JSON", exact=False)).to_be_visible()
    editor.press_sequentially("}")
    expect(pg.output(1).get_by_text("Not valid JSON", exact=False)).to_have_count(0)
    pg.output(1).locator(".mcp-widgets-form").get_by_role("button", name="Decline").click()
    pg.page.wait_for_timeout(1000)
    assert log_entries(pg) == []
    ours = [e for e in open_notebook.console_errors if OURS.search(e)]
    assert ours == [], ours
    assert open_notebook.console_errors == [], open_notebook.console_errors
