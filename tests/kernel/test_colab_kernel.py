"""Google Colab's runtime in a real kernel (.venvs/colab: ipykernel 6.17.1, IPython 7.34, ipywidgets 7.7.1, no
`comm` package): the package imports, waits with the pump, shows a date-time field as a checked text box, and
connects without the Tab completion IPython 7 has no API for. (The waiting tests marked `colab` run there
too.)
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import COLAB
from .harness import CellResult, KernelFrontend
from .pool import fresh_kernel

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(
        not COLAB.available, reason=f"no Colab venv at {COLAB.python}: run scripts/kernel-venvs.sh"
    ),
]


@pytest.fixture(scope="module")
def colab() -> Iterator[KernelFrontend]:
    fe = fresh_kernel(COLAB.python, spare=False)
    try:
        yield fe
    finally:
        fe.stop()


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def test_the_runtime_is_colabs_and_the_package_imports_without_comm(colab: KernelFrontend) -> None:
    cell = ok(
        colab.run(
            "import sys, ipykernel, ipywidgets, IPython\n"
            "import mcp_widgets\n"
            "from mcp_widgets import Server, ElicitationForm\n"
            "from mcp_widgets import kernel as _k\n"
            "print(ipykernel.__version__, ipywidgets.__version__, IPython.__version__,\n"
            "      'comm' in sys.modules, _k.kernel_support(), _k.blocking_supported())",
            timeout=120,
        )
    )
    assert cell.stdout.split() == ["6.17.1", "7.7.1", "7.34.0", "False", "pump", "True"]
    assert "Warning" not in cell.stderr, cell.stderr


FORM = """
form = ElicitationForm("When?", {"type": "object", "required": ["when"], "properties": {
    "when": {"type": "string", "format": "date-time", "title": "When"}}}, server="colab")
display(form)
print(type(form._fields["when"].control).__name__)
"""


def test_a_date_time_field_is_a_text_box_with_the_pickers_check(colab: KernelFrontend) -> None:
    ok(colab.run("from IPython.display import display"))
    cell = ok(colab.run(FORM))
    assert cell.stdout.split()[-1] == "Text"  # ipywidgets 7 has no DatetimePicker
    box = colab.wait_widget(
        "TextModel", where=lambda w: str(w.state.get("description", "")).startswith("When")
    )
    assert box.state.get("placeholder") == "2024-01-05T10:00:00Z"
    colab.update(box, {"value": "2024-01-05T10:00:00"})  # typed without an offset: refused, and said why
    colab.wait_widget("LabelModel", where=lambda w: "time zone" in str(w.state.get("value", "")))
    colab.click(colab.wait_widget("ButtonModel", where=lambda w: w.state.get("description") == "Accept"))
    assert ok(colab.run("print(form.result)")).stdout.strip() == "None"  # not accepted
    colab.update(box, {"value": "2024-01-05T10:00:00+02:00"})
    colab.click(colab.wait_widget("ButtonModel", where=lambda w: w.state.get("description") == "Accept"))
    colab.wait_until(
        lambda: "accept" in ok(colab.run("print(form.result and form.result.action)")).stdout,
        timeout=30,
        what="the form accepted",
    )
    cell = ok(colab.run("print(form.result.content)"))
    assert cell.stdout.strip() == "{'when': '2024-01-05T10:00:00+02:00'}"


CONNECT = """
import mcp_types
from mcp.server.mcpserver import MCPServer
import mcp_widgets.client as mwc
staff = MCPServer("staff")

@staff.prompt(name="greet", description="Greet someone.")
def greet(name: str) -> str:
    return f"Hello {name}"

@staff.completion()
async def complete(ref, argument, context):
    return mcp_types.Completion(values=["Alice", "Alan"], total=2, has_more=False)

srv = mwc.connect_sync(staff)
matchers = get_ipython().Completer.custom_matchers
ours = [m for m in matchers if getattr(m, "matcher_identifier", "").startswith("mcp")]
print("connected", srv.complete_sync(prompt="greet", argument="name", value="Al").values, len(ours))
"""


def test_connect_works_and_tab_completion_is_silently_absent(colab: KernelFrontend) -> None:
    cell = ok(colab.run(CONNECT, timeout=180))
    assert cell.stdout.split("\n")[0] == "connected ['Alice', 'Alan'] 0"
    code = 'srv.get_prompt("greet", {"name": "Al'
    reply = colab.wait_reply(colab.complete(code, len(code)), timeout=30)
    assert reply["status"] == "ok" and "Alice" not in reply["matches"]
    assert "Traceback" not in colab.printed()
    ok(colab.run("srv.close()"))


BUNDLES = """
import datetime as dt
import ipywidgets as W
from mcp_widgets import kernel as _k
print(hasattr(W.Widget, "_repr_mimebundle_"), sorted(_k.widget_bundle(W.Button(description="b"))))
print(sorted(_k.bundle_of(W.VBox())), _k.with_text(W.Label("x"), "plain")["text/plain"])
when = {"type": "string", "format": "date-time", "default": "2024-01-05T10:00:00+00:00"}
form2 = ElicitationForm("When?", {"type": "object", "properties": {"when": when}}, server="colab")
print(form2._fields["when"].control.value)
form2.fill(when=dt.datetime(2024, 1, 6, 9, 30, tzinfo=dt.timezone.utc))
form2.accept()
print(form2.result.content)
"""


def test_bundles_and_date_times_from_python(colab: KernelFrontend) -> None:
    """ipywidgets 7 has no `_repr_mimebundle_`: the kernel room makes the same bundle; a date-time default and
    a datetime filled in from Python become the text box's RFC 3339 text."""
    ok(colab.run("from mcp_widgets import ElicitationForm"))
    lines = ok(colab.run(BUNDLES)).stdout.splitlines()
    assert lines == [
        "False ['application/vnd.jupyter.widget-view+json', 'text/plain']",
        "['application/vnd.jupyter.widget-view+json', 'text/plain'] plain",
        "2024-01-05T10:00:00Z",
        "{'when': '2024-01-06T09:30:00Z'}",
    ]


TOOLTIP = """
nick = {"type": "string", "description": "Your nickname"}
c = ElicitationForm("x", {"type": "object", "properties": {"a": nick}}, server="s")._fields["a"].control
print(c.description_tooltip, "|", c.tooltip)
"""


def test_a_tooltip_is_ipywidgets_7s_description_tooltip(colab: KernelFrontend) -> None:
    cell = ok(colab.run(TOOLTIP))
    assert cell.stdout == "Your nickname | Your nickname\n"


PLAIN = """
import mcp_widgets as mw
e = mw.ElicitationForm("x", {"type": "object", "properties": {"a": {"type": "string"},
    "when": {"type": "string", "format": "date-time"}}}, server="s")
e.fill(a="hello", when="2024-01-01T00:00:00Z")
e.accept()
print(e.result.content, e.comm.kernel)
"""


def test_a_form_in_plain_python_on_colabs_widgets() -> None:
    """No kernel (a script, a handler's form): ipywidgets 7's comm opens nothing, and the form still works."""
    import subprocess

    out = subprocess.run([str(COLAB.python), "-c", PLAIN], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == "{'a': 'hello', 'when': '2024-01-01T00:00:00Z'} None\n"
