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
    "when": {"type": "string", "title": "When", "minLength": 3}}}, server="colab")
display(form)
"""

TOOL_FIELD = """
from mcp_widgets.core.schema import parse_schema
from mcp_widgets.widgets._fields import make_field, Kit
spec = parse_schema({"type": "object", "properties": {"when": {"type": "string", "format": "date-time",
    "default": "2024-01-05T10:00:00+00:00", "description": "Your time"}}}).fields[0]
field = make_field(spec, Kit())
print(type(field.control).__name__, "|", field.control.value, "|", field.control.placeholder, "|",
      field.control.description_tooltip, "|", field.control.tooltip)
"""


def test_a_question_is_one_model_on_colabs_widgets_and_a_tool_date_time_is_a_checked_text_box(
    colab: KernelFrontend,
) -> None:
    """The question (one anywidget) is typed into and accepted as its page does on ipywidgets 7; a tool
    form's date-time field (still stock controls) is a text box, ipywidgets 7 having no DatetimePicker."""
    from .test_client_kernel import pending_form

    ok(colab.run("from IPython.display import display\nfrom mcp_widgets import ElicitationForm"))
    ok(colab.run(FORM))
    form = pending_form(colab, timeout=60).seen()
    assert form.model.state.get("_anywidget_id") == "mcp_widgets.ElicitationForm"
    form.type("When *", "no")
    form.click("Accept")  # too short: refused
    assert ok(colab.run("print(form.result)")).stdout.strip() == "None"
    form.type("When *", "noon")
    form.click("Accept")
    colab.wait_until(
        lambda: "accept" in ok(colab.run("print(form.result and form.result.action)")).stdout,
        timeout=30,
        what="the form accepted",
    )
    assert ok(colab.run("print(form.result.content)")).stdout.strip() == "{'when': 'noon'}"
    line = ok(colab.run(TOOL_FIELD)).stdout.strip()
    # (a tooltip is ipywidgets 7's description_tooltip, read back by either name)
    assert line == "Text | 2024-01-05T10:00:00Z | 2024-01-05T10:00:00Z | Your time | Your time"


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
import ipywidgets as W
from mcp_widgets import kernel as _k
print(hasattr(W.Widget, "_repr_mimebundle_"), sorted(_k.widget_bundle(W.Button(description="b"))))
print(sorted(_k.bundle_of(W.VBox())), _k.with_text(W.Label("x"), "plain")["text/plain"])
form2 = ElicitationForm("x", {"type": "object", "properties": {"a": {"type": "string"}}}, server="colab")
print(sorted(_k.bundle_of(form2)))
"""


def test_bundles_on_ipywidgets_7(colab: KernelFrontend) -> None:
    """ipywidgets 7 has no `_repr_mimebundle_`: the kernel room makes the same bundle, for stock widgets and
    for the question's one anywidget."""
    ok(colab.run("from mcp_widgets import ElicitationForm"))
    lines = ok(colab.run(BUNDLES)).stdout.splitlines()
    view = "['application/vnd.jupyter.widget-view+json', 'text/plain']"
    assert lines == [f"False {view}", f"{view} plain", view]


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
    # (the one-model form keeps a date-time as the instant it names: RFC 3339 with its offset)
    assert out.stdout == "{'a': 'hello', 'when': '2024-01-01T00:00:00+00:00'} None\n"
