"""Google Colab's widget stack in a real browser: the classic Notebook 6.5.7 with widgetsnbextension 3.6.10,
and a kernel of Colab's runtime (ipykernel 6.17.1, IPython 7.34, ipywidgets 7.7.1, anywidget 0.9.21), the
nearest front end to Colab's own, which cannot be reached from here. Both come from .venvs/colab
(scripts/kernel-venvs.sh colab), which holds Colab's notebook 6.5.7 as Colab does.

One notebook, one test (the server costs seconds, each page load more): a question typed and accepted from
an awaiting cell, a blocking cell and a background call; a URL card opened and finished; the history; a tool
form.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .harness import CHROMIUM, ROOT, UI_MS, LabServer, _write_json

pytestmark = pytest.mark.browser

COLAB = ROOT / ".venvs" / "colab" / "bin" / "python"
BUILD = ROOT / "build" / "colab"
"""Where the test leaves its screenshots (one per step) to look at."""

KERNEL_IDLE_JS = """() => {
  const nb = window.Jupyter && Jupyter.notebook;
  const icon = document.querySelector("#kernel_indicator_icon");
  const idle = !!icon && icon.classList.contains("kernel_idle_icon");
  return !!nb && !!nb.kernel && nb.kernel.is_connected() && idle;
}"""
"""The classic notebook's kernel is connected and idle (its indicator alone says idle before it connects)."""

HEADER = "Request from demo (calls itself “mcp-widgets-demo”)"
ANSWERED = f"{HEADER}: accepted by the person"

CELLS = [
    "import mcp_widgets as mw\nfrom mcp_widgets.demo import create_server\n"
    'srv = await mw.connect(create_server(sign_in_port=0), name="demo")',
    "r = await srv.call_tool('weather')\nprint(r.structured_content['city'])",
    "r = srv.call_tool_sync('weather')\nprint(r.structured_content['city'])",
    "call = srv.call_tool_background('weather')",
    "r = await srv.call_tool('sign_in')\nprint(r.structured_content)",
    "srv.history",
    "tf = srv.form('weather')\ntf",
    "tf.fill(city='Quito')\nr = await tf.run()\nprint(r.structured_content['city'], tf.result.is_error)",
]

# What the stand-in front end gets wrong by itself, with stock widgets alone (checked: a bare `W.Output()` in
# a fresh notebook throws the first; two `children` updates of a Box in a row can throw the second, ipywidgets
# 7's box losing the race between the views of the first list and the second). Nothing else may be thrown.
STAND_IN_OWN_ERRORS = {
    # widgetsnbextension 3.6.10 in Notebook 6.5.7 cannot make an Output model (stock `W.Output()` too): its
    # loadClass looks "@jupyter-widgets/output" classes up in a variable its minifier reused for
    # `Jupyter.version.split(".")`. Colab has a widget manager of its own.
    "n._deserialize_state is not a function": "_make_model",
    # A view of the first list is asked for after the second list removed it (a URL card: consent, then the
    # "I've finished" round right after).
    "Could not add child view to box": "jupyter-js-widgets/extension.js",
    # The same race, for a question (one anywidget) the kernel closed once answered: the box's view list of
    # before asks anywidget for a view of the closed model, whose runtime anywidget has dropped (the question
    # was answered and its line shown; nothing is lost). Seen only with ipywidgets 7's classic box.
    "[anywidget] Runtime not found.": "/nbextensions/anywidget/",
    # ipywidgets 7's manager, as a view goes after its model closed: its "remove" handler drops the view from
    # `model.views`, which closing the model already dropped (`delete undefined[id]`). Nothing is lost.
    "Cannot convert undefined or null to object": "jupyter-js-widgets/extension.js",
}


def _own_error(message: str, stack: str) -> bool:
    where = STAND_IN_OWN_ERRORS.get(message)
    if where is None or where not in stack:
        return False
    return "/nbextensions/jupyter-js-widgets/" in stack or where == "/nbextensions/anywidget/"


class ClassicServer(LabServer):
    """`jupyter notebook` 6.5 of the Colab venv (its kernel is that venv's python), in a home of its own."""

    def _prepare(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        _write_json(
            self.base / "data" / "kernels" / "python3" / "kernel.json",
            {
                "argv": [str(COLAB), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
            },
        )

    def start(self) -> None:
        self._prepare()
        args = [
            str(COLAB),
            "-m",
            "notebook",
            "--no-browser",
            f"--NotebookApp.token={self.token}",
            "--NotebookApp.ip=127.0.0.1",
            f"--NotebookApp.port={self.port}",
            "--NotebookApp.port_retries=0",
            f"--NotebookApp.notebook_dir={self.root}",
            "--allow-root",
        ]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                args,
                cwd=self.root,
                env=self._env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter notebook exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                self.api("GET", "/api/status")
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"jupyter notebook did not answer in time:\n{self.log_tail()}"
                    ) from None
                time.sleep(0.1)  # waiting for a port to open: nothing in a page to wait on yet


@pytest.fixture(scope="module")
def classic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClassicServer]:
    if not COLAB.exists():
        pytest.skip(f"no Colab venv at {COLAB.parent.parent}: run scripts/kernel-venvs.sh colab")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: run scripts/browser-deps.sh")
    server = ClassicServer(tmp_path_factory.mktemp("classic"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def page(classic: ClassicServer, browser: Any) -> Iterator[Any]:
    """A page of the session's Chromium (one Playwright per process: the other browser tests share it)."""
    errors: list[str] = []
    own: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        context.set_default_timeout(UI_MS)
        page = context.new_page()
        page.on(
            "pageerror",
            lambda error: (own if _own_error(str(error), str(error.stack)) else errors).append(str(error)),
        )
        page.own_errors = own  # the test reads which of the stand-in's own errors it met
        yield page
    finally:
        context.close()
    classic.delete_sessions()
    assert not errors, f"uncaught errors in the page: {errors}"


class Classic:
    """A notebook open in the classic Notebook: run cells as a person does, find their outputs."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def cell(self, index: int) -> Any:
        return self.page.locator(".cell.code_cell").nth(index)

    def output(self, index: int) -> Any:
        return self.cell(index).locator(".output")

    def prompt(self, index: int) -> Any:
        return self.cell(index).locator(".input_prompt")

    def run(self, index: int) -> None:
        """Click into the cell, Control+Enter; returns once the run was taken (the prompt left "In [ ]:")."""
        from playwright.sync_api import expect

        self.cell(index).locator(".input_area").click()
        self.page.keyboard.press("Control+Enter")
        expect(self.prompt(index)).not_to_have_text(re.compile(r"^In\s\[\s\]:$"), timeout=UI_MS)

    def waiting(self, index: int) -> None:
        from playwright.sync_api import expect

        expect(self.prompt(index)).to_have_text(re.compile(r"^In\s\[\*\]:$"))

    def done(self, index: int, timeout: float = UI_MS) -> None:
        from playwright.sync_api import expect

        expect(self.prompt(index)).to_have_text(re.compile(r"^In\s\[\d+\]:$"), timeout=timeout)

    def shoot(self, name: str, part: Any = None) -> None:
        """The page (or one element of it) as build/colab/NAME.png."""
        BUILD.mkdir(parents=True, exist_ok=True)
        (part or self.page).screenshot(path=str(BUILD / f"{name}.png"), animations="disabled")


def answer_city(nb: Classic, index: int, city: str) -> None:
    """Type `city` into cell `index`'s weather question and press Accept (it is enabled once typed)."""
    from playwright.sync_api import expect

    form = nb.output(index).locator(".mcp-widgets-form")
    expect(form.get_by_text("Which city? Decline to get the weather for Paris.")).to_be_visible()
    accept = form.get_by_role("button", name="Accept")
    expect(accept).to_be_disabled()  # City is required
    form.locator("input[type=text]").first.press_sequentially(city)
    expect(accept).to_be_enabled()
    nb.shoot(f"question-{index}")
    accept.click()
    expect(nb.output(index)).to_contain_text(ANSWERED)
    expect(nb.output(index).locator(".mcp-widgets-form")).to_have_count(0)


def test_colabs_widgets_in_the_classic_notebook(classic: ClassicServer, page: Any) -> None:
    from playwright.sync_api import expect

    path = classic.write_notebook("colab", CELLS)
    classic.start_session(path)
    page.goto(f"{classic.url}/notebooks/{path}?token={classic.token}")
    page.wait_for_function(KERNEL_IDLE_JS, timeout=60_000)
    nb = Classic(page)
    nb.run(0)
    nb.done(0, timeout=UI_MS * 4)
    expect(nb.output(0).locator(".output_stderr")).to_have_count(0)

    # An awaiting cell and a blocking cell: the form shows while the cell runs, the answer reaches it.
    for index, city in ((1, "Kyoto"), (2, "Oslo")):
        nb.run(index)
        nb.waiting(index)
        answer_city(nb, index, city)
        nb.done(index)
        expect(nb.output(index).locator(".output_stdout")).to_have_text(f"{city}\n")

    # A background call: the cell returns at once, the form and the call's status line stay in it.
    nb.run(3)
    nb.done(3)
    answer_city(nb, 3, "Lima")
    expect(nb.output(3).get_by_text("tool 'weather' on 'demo': done")).to_be_visible()
    expect(nb.output(3)).to_contain_text('"answer": "accept"')

    # The URL card: the address as text, Open page opens it in a new tab, finishing there ends the call.
    nb.run(4)
    out = nb.output(4)
    shown = out.get_by_text("Full address: ", exact=False)
    expect(shown).to_be_visible()
    url = shown.inner_text().removeprefix("Full address: ")
    expect(out.locator(".mcp-widgets-url[data-mcp-widgets-open]")).to_have_count(
        1
    )  # its helper view is there
    nb.shoot("url-card")
    with page.context.expect_page() as opened:
        out.get_by_role("button", name="Open page").click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == url and tab.evaluate("window.opener") is None
    # The page is a sign-in the server requires (2025-11-25, -32042): finish there, then say so here.
    tab.get_by_role("button", name="Sign in as demo-user").click()
    expect(tab.get_by_text("Signed in.", exact=False)).to_be_visible()
    tab.close()
    finished = out.get_by_role("button", name="I've finished — try again")
    expect(finished).to_be_visible()
    nb.shoot("url-card-opened")
    finished.click()
    nb.done(4, timeout=UI_MS * 2)
    expect(nb.output(4).locator(".output_stdout")).to_have_text("{'done': True, 'user': 'demo-user'}\n")

    # The history: one row per question asked, how each ended, never a value typed.
    nb.run(5)
    table = nb.output(5).locator("table.mcp-widgets-history")
    expect(table).to_be_visible()
    expect(table.locator("tbody tr")).to_have_count(5)  # the sign-in asks twice: consent, then "finished"
    for city in ("Kyoto", "Oslo", "Lima"):
        expect(table).not_to_contain_text(city)
    nb.shoot("history", nb.output(5))

    # A tool form holds an Output widget for its result, which the stand-in cannot make (STAND_IN_OWN_ERRORS):
    # the form does not render here. Its kernel side is driven from the next cell instead (fill, Run, result).
    nb.run(6)
    nb.done(6)
    nb.run(7)
    nb.done(7, timeout=UI_MS * 2)
    expect(nb.output(7).locator(".output_stdout")).to_have_text("Quito False\n")
    expect(nb.output(6).locator(".mcp-widgets-tool-form")).to_have_count(0)
    nb.shoot("tool-form")
    assert any("_deserialize_state" in e for e in page.own_errors), page.own_errors
