"""notebooks/schema_playground.ipynb in JupyterLab, as a person uses it: answer the preview, Reset it, fill
it from code; the editor sits inside its box."""

from __future__ import annotations

import pytest

from .conftest import OpenNotebook
from .gallery import shoot
from .test_clean_logs_browser import code_cells, open_copy

pytestmark = pytest.mark.browser

OVERFLOW_JS = """(el) => {
  const box = el.closest('.jp-OutputArea-output').getBoundingClientRect();
  const r = el.getBoundingClientRect();
  return {left: r.left - box.left, right: box.right - r.right};
}"""


def test_answer_reset_and_fill_from_code(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = open_copy(open_notebook, "schema_playground")
    cells = code_cells("schema_playground")
    fill = next(i for i, source in enumerate(cells) if "pg.preview.reset()" in source)
    for index in (0, 1):
        nb.run(index)
        nb.wait_done(index)
    out = nb.output(1)
    editor = out.locator("textarea").first
    for part in (editor, out.locator(".widget-text").first):  # the schema and the message
        margins = part.evaluate(OVERFLOW_JS)
        print(f"[margins in its output: {margins}]", end=" ")
        assert 0 <= margins["left"] <= 8 and 0 <= margins["right"] <= 8, margins  # inside, and filling it

    form = out.locator(".mcp-widgets-form")
    form.get_by_label("Title").press_sequentially("Crash on save")
    form.get_by_role("button", name="Accept").click()
    expect(out.get_by_text("Accept → sent (values not kept here)")).to_be_visible()
    out.get_by_role("button", name="Reset").click()
    fresh = out.locator(".mcp-widgets-form")
    expect(fresh.get_by_label("Title")).to_have_value("")
    expect(fresh.get_by_role("button", name="Accept")).to_be_disabled()
    expect(out.get_by_text("Accept → nothing (Accept is disabled: fix: title)")).to_be_visible()
    shoot(nb, out, "playground-notebook")

    for index in range(2, fill + 1):
        nb.run(index)
        nb.wait_done(index)
    expect(nb.stdout(fill)).to_contain_text('"title": "Crash when saving"')
    expect(nb.stderr(fill)).to_have_count(0)
