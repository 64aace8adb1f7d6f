"""Every notebook in notebooks/ runs top to bottom with nobody clicking, and shows what it should.

Each notebook runs under nbclient in a real kernel of this test environment's python. Who answers the forms is
chosen from OUTSIDE the notebook, through the kernel's environment (`MCP_WIDGETS_HANDLER`), exactly as a CI
run would; the notebooks themselves set no handler, so in JupyterLab they wait for the person. With no
handler and no variable at all, every notebook still runs to the end, under nbclient and under papermill:
nobody renders the forms, so each question is declined as headless and the cell says so.
"""

from __future__ import annotations

import html
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import nbclient
import nbformat
import papermill
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from tests.servers import ROOT

pytestmark = pytest.mark.kernel

ROOT = ROOT
NOTEBOOKS = ROOT / "notebooks"
NAMES = ("quickstart", "schema_playground", "teaching")
HOSTILE = "<img src=x onerror=alert(1)>"
"""The markup the teaching notebook sends as a server message: it must only ever appear as plain text."""

# Tags our own HTML outputs may use (tables, simple text markup). Anything else in an HTML output or an HTML
# widget means some text was rendered as markup.
SAFE_TAGS = {"table", "thead", "tbody", "tr", "th", "td", "caption", "div", "span", "p", "br", "small"}
SAFE_TAGS |= {"b", "i", "em", "strong", "code", "pre", "ul", "li", "details", "summary"}
SAFE_TAGS |= {"style"}  # our own CSS (the history panel); server text in it is still caught as HOSTILE below


def _kernel_manager(workdir: Path) -> KernelManager:
    """A kernel manager for a kernel run by this python (the .venv), whatever `python` is on PATH."""
    spec_dir = workdir / "kernels" / "mcpw-notebooks"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "mcp-widgets notebooks",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    ksm = KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])
    return KernelManager(
        kernel_name="mcpw-notebooks",
        kernel_spec_manager=ksm,
        transport="ipc",
        ip=str(workdir / "kernel"),
        connection_file=str(workdir / "kernel.json"),
    )


def run_notebook(name: str, policy: str | None, runner: str = "nbclient", setup: str = "") -> Any:
    """Execute notebooks/<name>.ipynb with `MCP_WIDGETS_HANDLER=policy` in the kernel's environment.

    `policy=None`: the variable is not set at all (a plain `jupyter nbconvert --execute` or papermill run).
    `setup`: code run first, in a cell of its own that only the executed copy has (nbclient only).
    """
    env = {k: v for k, v in os.environ.items() if k != "MCP_WIDGETS_HANDLER"}
    if policy is not None:
        env["MCP_WIDGETS_HANDLER"] = policy
    with tempfile.TemporaryDirectory(prefix="mcpw-nb-") as tmp:
        km = _kernel_manager(Path(tmp))
        if runner == "papermill":
            # papermill starts the kernel itself, with the environment of this process.
            saved = dict(os.environ)
            os.environ.clear()
            os.environ.update(env)
            try:
                return papermill.execute_notebook(
                    str(NOTEBOOKS / f"{name}.ipynb"),
                    None,
                    km=km,
                    cwd=str(NOTEBOOKS),
                    progress_bar=False,
                    execution_timeout=120,
                )
            finally:
                os.environ.clear()
                os.environ.update(saved)
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        if setup:
            nb.cells.insert(0, nbformat.v4.new_code_cell(setup))
        client = nbclient.NotebookClient(
            nb, km=km, timeout=120, allow_errors=True, store_widget_state=True, record_timing=False
        )
        client.execute(env=env, cwd=str(NOTEBOOKS))
    return nb


@pytest.fixture(scope="module")
def executed() -> Iterator[dict[tuple[str, str], Any]]:
    cache: dict[tuple[str, str | None, str], Any] = {}

    def get(name: str, policy: str | None = "accept_defaults", runner: str = "nbclient") -> Any:
        if (name, policy, runner) not in cache:
            cache[(name, policy, runner)] = run_notebook(name, policy, runner)
        return cache[(name, policy, runner)]

    yield get  # type: ignore[misc]


# -- reading executed notebooks ------------------------------------------------------------------------------


def errors(nb: Any) -> list[str]:
    found = []
    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                found.append(f"cell {index}: {out.ename}: {out.evalue}")
            elif out.output_type == "stream" and out.name == "stderr" and "Traceback" in out.text:
                found.append(f"cell {index}: traceback on stderr: {out.text[-500:]}")
    return found


def texts(nb: Any) -> str:
    """Every plain-text output (streams, text/plain) and every widget's string state, joined."""
    parts: list[str] = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                parts.append(str(out.data.get("text/plain", "")))
    for model in widget_models(nb):
        parts.extend(v for v in model["state"].values() if isinstance(v, str))
        # A question card's server text is in its card (a dict of what the server sent).
        parts.extend(
            json.dumps(v, ensure_ascii=False) for v in model["state"].values() if isinstance(v, dict)
        )
    return "\n".join(parts)


def widget_models(nb: Any) -> list[dict[str, Any]]:
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return list(state.get("state", {}).values())


def history_pages(nb: Any) -> list[str]:
    """Each history panel saved in the notebook (one anywidget each): its page's text, one cell a line."""
    return [
        "\n".join(cell for line in model["state"].get("lines", []) for cell in line["cells"])
        for model in widget_models(nb)
        if model["state"].get("_anywidget_id") == "mcp_widgets.HistoryPanel"
    ]


def html_outputs(nb: Any) -> list[str]:
    """Every piece of output a browser would interpret as HTML or Markdown."""
    found: list[str] = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type in ("execute_result", "display_data"):
                for mime in ("text/html", "text/markdown", "image/svg+xml"):
                    if mime in out.data:
                        found.append(str(out.data[mime]))
    for model in widget_models(nb):
        state = model["state"]
        if model.get("model_name") in ("HTMLModel", "HTMLMathModel"):
            found.append(str(state.get("value", "")))
        if state.get("description_allow_html"):
            found.append(str(state.get("description", "")))
        for option in state.get("_options_labels", []) if state.get("description_allow_html") else []:
            found.append(str(option))
    return found


class _TagCheck(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in SAFE_TAGS:
            self.bad.append(f"<{tag}>")
        self.bad.extend(
            f"{tag}[{name}]" for name, _ in attrs if name.lower().startswith("on") or name == "src"
        )


def unsafe_markup(nb: Any) -> list[str]:
    bad: list[str] = []
    for text in html_outputs(nb):
        if HOSTILE in text:
            bad.append(f"unescaped server text in HTML: {text[:200]!r}")
        check = _TagCheck()
        check.feed(text)
        bad.extend(check.bad)
    return bad


def stripped(name: str) -> bool:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    return all(not c.outputs and c.execution_count is None for c in code) and "widgets" not in nb.metadata


# -- the tests ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_committed_without_outputs(name: str) -> None:
    assert stripped(name), f"{name}.ipynb has outputs or widget state: strip them before committing"


SHIPPED = sorted(NOTEBOOKS.glob("*.ipynb"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_valid_as_written(path: Path) -> None:
    # A cell without an id makes nbformat warn in the server log and fill one in, and JupyterLab opens the
    # tab already marked modified: every shipped notebook must need no repair. (The server reads a notebook
    # with nbformat as here: a browser test opening each one in JupyterLab to read its ids back was dropped.)
    raw = json.loads(path.read_text())
    assert [i for i, cell in enumerate(raw["cells"]) if "id" not in cell] == [], "cells without an id"
    ids = [cell["id"] for cell in raw["cells"]]
    assert len(set(ids)) == len(ids), "two cells share an id"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nb = nbformat.reads(path.read_text(), as_version=4)
        nbformat.validate(nb)
        changes, _normalized = nbformat.validator.normalize(raw)
    assert [str(w.message) for w in caught] == []
    assert changes == 0


@pytest.mark.parametrize("name", NAMES)
def test_sets_no_handler_itself(name: str) -> None:
    # Headless runs choose who answers from outside; in JupyterLab the notebook must wait for the person.
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for needle in ("MCP_WIDGETS_HANDLER", "set_default_handler", "handler="):
        assert needle not in source, f"{name}.ipynb answers its own forms ({needle})"


@pytest.mark.parametrize("name", NAMES)
def test_runs_headless_without_errors(executed: Any, name: str) -> None:
    nb = executed(name)
    assert errors(nb) == []
    assert all(c.execution_count is not None for c in nb.cells if c.cell_type == "code")


@pytest.mark.parametrize("name", NAMES)
def test_no_server_text_rendered_as_html(executed: Any, name: str) -> None:
    assert unsafe_markup(executed(name)) == []


def test_quickstart_shows_results(executed: Any) -> None:
    out = texts(executed("quickstart"))
    assert "(calls itself 'mcp-widgets-demo')" in out  # who is asking, and what it calls itself
    assert "delete_files" in out and "register" in out  # the tool table
    # accept_defaults: the confirmation is accepted, so the simulated .tmp files go to the trash ...
    assert "'deleted': ['cache.tmp', 'draft.tmp', 'scratch.tmp']" in out
    # ... registration has required fields without defaults, so it is declined; weather falls back to Paris
    assert "{'done': False, 'action': 'decline'}" in out
    assert "'city': 'Paris'" in out
    assert "'flavour': 'vanilla'" in out  # choose: every field's default
    assert "not ticked: nothing deleted" in out  # background call: the checkbox confirmation
    assert "protocol      2026-07-28" in out  # srv.info
    # long_task: its display ends as text (the updates must reach the cell that made the call)
    assert "Progress: done — step 4 of 4 (100%)" in out
    assert "<ToolForm tool='search_files' server='demo' fields=6 ready>" in out
    assert "'notes.txt'" in out and "'report.pdf'" in out  # the form, filled and run from code
    # The wire: its text beside the live view (what a notebook saved without widget state shows).
    assert "wire of 'demo':" in out and "tool delete_files (" in out and "round 2: tools/call" in out


def test_quickstart_when_everything_is_declined(executed: Any) -> None:
    nb = executed("quickstart", "decline")
    assert errors(nb) == []
    out = texts(nb)
    assert "'deleted': ['cache.tmp'" not in out  # nothing moved without a yes
    assert "{'done': False, 'action': 'decline'}" in out
    assert "the trash is empty" in out
    assert "'city': 'Paris'" in out
    assert "MCP_WIDGETS_HANDLER=decline" in out  # each form's last line says who answered


def test_playground_shows_form_problems_and_json(executed: Any) -> None:
    out = texts(executed("schema_playground"))
    assert "property-type-missing" in out  # the example's one warning
    assert "Accept →" in out and "Decline →" in out and "Cancel →" in out
    assert '{"action": "decline"}' in out
    assert "property-type" in out and "-32602" in out  # validate_schema on a schema with an error
    assert '"title": "Crash when saving"' in out  # filled from Python: the exact JSON Accept would send


def test_teaching_shows_what_the_server_sees(executed: Any) -> None:
    nb = executed("teaching")
    out = texts(nb)
    for action in ("accept", "decline", "cancel"):
        assert f'"action": "{action}"' in out or f"'action': '{action}'" in out
    assert "2026-07-28" in out and "2025-11-25" in out  # both protocol generations
    assert (
        "'content': {'name': 'Ada', 'cups': 2}" in out
    )  # echo_elicit: the reply exactly as the server got it
    assert HOSTILE in out  # the hostile message is shown, as plain text only (see the HTML test)
    # The history names what was asked and how it ended, never what was sent.
    assert "echo_elicit: asked for name, cups -> accept by MCP_WIDGETS_HANDLER=accept_defaults" in out
    history = [text for text in history_pages(nb) if "echo_elicit" in text]
    assert history, "the history panel was not rendered"
    assert any(HOSTILE in text for text in history)  # as text: the page sets it as textContent
    assert not any("Ada" in text for text in history)
    assert not any("echo_elicit" in text for text in html_outputs(nb))  # no HTML of it anywhere


def test_quickstart_history_shows_the_questions_without_values(executed: Any) -> None:
    history = [text for text in history_pages(executed("quickstart")) if "delete_files" in text]
    assert history, "the history panel was not rendered"
    assert "cache.tmp" in history[-1]  # the server's message names the files: that is kept
    assert "vanilla" not in history[-1]  # the values sent (choose's defaults) are not


def test_the_markup_check_catches_unescaped_server_text() -> None:
    def nb_with(html_text: str, widget_html: str = "") -> Any:
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("x")
        cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": html_text})]
        nb.cells = [cell]
        state = {"m": {"model_name": "HTMLModel", "state": {"value": widget_html}}}
        nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state}}
        return nb

    assert unsafe_markup(nb_with(f"<table><tr><td>{html.escape(HOSTILE)}</td></tr></table>")) == []
    assert unsafe_markup(nb_with(f"<td>{HOSTILE}</td>")) != []
    assert unsafe_markup(nb_with("<p>fine</p>", f"<div>{HOSTILE}</div>")) != []
    assert unsafe_markup(nb_with('<a href="javascript:x">x</a>')) == ["<a>"]
    assert unsafe_markup(nb_with('<div onclick="x">x</div>')) == ["div[onclick]"]


# -- headless, with nobody choosing a policy ----------------------------------------------------------------

HEADLESS = "declined by policy 'headless' (no frontend showed the form"
# Per notebook: a piece of a code cell's source -> a text that cell's outputs must show when nobody answers.
ASKING_CELLS = {
    "quickstart": {
        'await srv.call_tool("register")': HEADLESS,  # await
        'await srv.call_tool("choose")': HEADLESS,
        'await srv.call_tool("delete_files"': HEADLESS,
        'srv.call_tool_sync("weather")': HEADLESS,  # blocking: it used to hang here
        'srv.call_tool_background("empty_trash")': "tool 'empty_trash' on 'demo': running",  # its state
    },
    "teaching": {
        'print("protocol", srv.protocol_version)': HEADLESS,  # 2026-07-28
        '"message": "Hello <img src=x onerror=alert(1)> world",\n    },\n)': HEADLESS,  # hostile text
        "await old.call_tool(": HEADLESS,  # 2025-11-25
        'await srv.call_tool("sign_in"': "to open a page on 127.0.0.1: declined by policy 'headless'",
    },
    "schema_playground": {},  # no server: nothing to decline
}


def cell_text(cell: Any) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(str(out.data.get("text/plain", "")))
    return "\n".join(parts)


@pytest.mark.parametrize("runner", ["nbclient", "papermill"])
@pytest.mark.parametrize("name", NAMES)
def test_runs_to_the_end_with_nobody_and_no_policy(executed: Any, name: str, runner: str) -> None:
    nb = executed(name, None, runner)
    assert errors(nb) == []
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code)
    for needle, shown in ASKING_CELLS[name].items():
        cells = [c for c in code if needle in c.source]
        assert len(cells) == 1, f"{name}: no single cell with {needle!r}"
        assert shown in cell_text(cells[0]), (needle, cell_text(cells[0]))
    # Every question any cell shows ended as headless: none waited, none was answered by anyone.
    for cell in code:
        for line in cell_text(cell).splitlines():
            if line.startswith("Request from"):
                assert "declined by policy 'headless'" in line, line


# -- the server-authoring notebook (#22): run twice, declined by nobody, and answered by a script ------------

AUTHORING = "server_authoring"
AUTHORING_SCRIPT = """import mcp_widgets as mw
mw.set_default_handler(mw.handlers.scripted([
    {"room": "large", "day": "2027-03-04", "guests": 8}, {"menu": "vegetarian"}, "accept",  # 2026-07-28
    {"room": "small", "day": "2027-03-05", "guests": 2}, "decline",  # 2025-11-25: not confirmed
    {"room": "small", "day": "2027-03-06", "guests": 3, "floor": "top"}, "accept",  # the changed model
    "accept",  # cancel_booking
]))"""


def test_authoring_notebook_is_committed_clean_and_answers_nothing_itself() -> None:
    assert stripped(AUTHORING)
    nb = nbformat.read(NOTEBOOKS / f"{AUTHORING}.ipynb", as_version=4)
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert not any(needle in source for needle in ("MCP_WIDGETS_HANDLER", "set_default_handler", "handler="))


def test_authoring_notebook_declined_by_default() -> None:
    nb = run_notebook(AUTHORING, None)
    assert errors(nb) == [] and unsafe_markup(nb) == []
    out = texts(nb)
    assert "protocol 2026-07-28" in out and "protocol 2025-11-25" in out
    assert out.count("{'booked': False, 'because': 'decline'}") == 3  # both generations, and the new model
    assert "{'cancelled': 0}" in out and "bookings []" in out
    assert "error [nested-model] property 'host'" in out and "[list-of-objects] property 'guests'" in out
    assert "[union] property 'budget'" in out
    for cell in nb.cells:
        for line in cell_text(cell).splitlines():
            if line.startswith("Request from"):
                assert "declined by policy 'headless'" in line, line


def test_authoring_notebook_answered_by_a_script() -> None:
    nb = run_notebook(AUTHORING, None, setup=AUTHORING_SCRIPT)
    assert errors(nb) == []
    out = texts(nb)
    first = (
        "{'booked': True, 'room': 'large', 'day': '2027-03-04', 'guests': 8, 'projector': False, 'note': None"
    )
    assert first + ", 'menu': 'vegetarian'}" in out
    # 2026-07-28: the resolvers ran once per round, the body once; 2025-11-25: every part once.
    assert "runs {'ask_booking': 4, 'ask_catering': 3, 'body': 1}" in out
    assert "{'booked': False, 'because': 'not confirmed'}" in out
    assert "runs {'ask_booking': 1, 'ask_catering': 1, 'body': 1}" in out
    assert "'day': '2027-03-06', 'guests': 3, 'projector': False, 'floor': 'top'" in out  # the new field
    assert "{'cancelled': 1}" in out
    assert "bookings [{'room': 'small', 'day': '2027-03-06'" in out
