"""`srv.fn` with names that break a namespace (#41), server text in its docstrings (#40) and docstrings that
read as sentences (#42): a real in-process server (tests/servers/awkward_names.py), the demo server, and
generated tool and property names (hypothesis)."""

from __future__ import annotations

import ast
import gc
import inspect
import json
import keyword
import unicodedata
import warnings
from typing import Any

import mcp_types as t
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.formatters import DisplayFormatter
from IPython.utils.dir2 import get_real_method

import mcp_widgets as mw
from mcp_widgets.client.functions import ToolFunctions
from mcp_widgets.core.text import shown
from mcp_widgets.core.tools.signature import bind_arguments, python_names, tool_docstring, tool_signature
from mcp_widgets.demo import create_server
from tests.servers.awkward_names import HOSTILE, TOOLS, build_server

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(120)]

IPYTHON_METHODS = (
    "_ipython_display_",
    "_repr_mimebundle_",
    "_repr_html_",
    "_repr_markdown_",
    "_repr_svg_",
    "_repr_png_",
    "_repr_jpeg_",
    "_repr_latex_",
    "_repr_json_",
    "_repr_javascript_",
    "_repr_pdf_",
    "_repr_pretty_",
)
"""What IPython's display formatters look up on the object a cell ends with."""

EXPECTED = {
    "_by_tool": "_by_tool",
    "_names": "_names",
    "_server": "_server",
    "_ipython_display_": "tool_ipython_display_",
    "_repr_html_": "tool_repr_html_",
    "__init__": "tool__init___2",  # `tool__init__` is another tool's own name
    "__listing__": "tool__listing__",
    "tool__init__": "tool__init__",
    "_": "tool__",
    "class": "class_",
    "get-weather": "get_weather_2",
    "get_weather": "get_weather",
    "ﬁle": "file_2",  # NFKC `file`, which is taken
    "file": "file",
    "x²": "x2",
    "dates": "dates",
    "hostile": "hostile",
}


def _called(function: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    said: dict[str, Any] = json.loads(function.sync(*args, **kwargs))
    return said


def test_every_awkward_name_reaches_its_own_tool() -> None:
    assert set(EXPECTED) == {tool.name for tool in TOOLS}
    srv = mw.connect_sync(build_server())
    try:
        fn = srv.fn
        assert dict(zip(fn, (srv.fn[py].tool.name for py in fn), strict=True)) == {
            py: name for name, py in EXPECTED.items()
        }
        for name, py in EXPECTED.items():
            if name in ("dates", "hostile"):
                continue
            assert _called(getattr(fn, py)) == {"tool": name, "arguments": {}}, name
            assert fn[name] is getattr(fn, py) is fn[py]
            assert name in fn and py in fn
        assert len(fn) == len(TOOLS) and list(fn) == list(EXPECTED.values())
        assert dir(fn) == sorted(EXPECTED.values())
        text = repr(fn)
        assert "  _by_tool() -> str\n" in text
        assert "  tool_ipython_display_() -> str  # tool '_ipython_display_'" in text
        assert "  file_2() -> str  # tool 'ﬁle'" in text
        # what a cell ending in `srv.fn` shows: the listing, through IPython's own formatter, nothing awaited
        for method in IPYTHON_METHODS:
            assert get_real_method(fn, method) is None, method
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data, _ = DisplayFormatter().format(fn)
            gc.collect()
        assert data == {"text/plain": text} and not caught, [str(w.message) for w in caught]
        assert fn._ipython_key_completions_() == list(EXPECTED)
        with pytest.raises(KeyError, match="lists no tool 'nope'"):
            fn["nope"]
    finally:
        srv.close()


def test_a_property_called_arguments_beside_one_that_is_no_identifier() -> None:
    srv = mw.connect_sync(build_server())
    try:
        dates = srv.fn.dates
        assert str(inspect.signature(dates)) == (
            "(arguments: str, sort_by: Optional[Literal['name', 'size']] = None, **arguments_: Any) -> str"
        )
        assert _called(dates, "days", sort_by="size", **{"first-day": 3}) == {
            "tool": "dates",
            "arguments": {"arguments": "days", "first-day": 3, "sort_by": "size"},
        }
        assert _called(dates, arguments="days") == {"tool": "dates", "arguments": {"arguments": "days"}}
        with pytest.raises(ValueError, match=r"dates\(\): argument 'first-day': must be at least 0"):
            dates.sync("days", **{"first-day": -1})
    finally:
        srv.close()


def test_server_text_in_a_docstring_is_shown_literally() -> None:
    srv = mw.connect_sync(build_server())
    try:
        doc = srv.fn.hostile.__doc__
        assert doc is not None and "\x1b" not in doc and "\u202e" not in doc and "\u202c" not in doc
        assert doc.startswith(shown(HOSTILE))
        assert r"\x1b]8;;https://evil.example/\x1b\the docs" in doc and r"\x1b[2J" in doc
        assert "U+202EesreverU+202C." in doc
        assert r"when: A time \x1b[31mred\x1b[0m U+202Eworb. Optional." in doc
        assert srv.fn.hostile.sync.__doc__ == doc
    finally:
        srv.close()


def test_demo_docstrings_read_as_sentences() -> None:
    srv = mw.connect_sync(create_server())
    try:
        doc = srv.fn.search_files.__doc__
        assert doc is not None
        args = doc.split("Args:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert args == [
            "    query: A glob or part of a name.",
            "    kind: Only files of this kind. Optional.",
            "    limit: At most this many results. Optional.",
            "    sort_by: Optional.",  # its title, "Sort By", only repeats the name
            "    tags: Words that must all be in the name. Optional.",
            "    options: Finer control. Optional.",
        ]
        assert "    pattern: Glob pattern of the files, e.g. *.log. Optional." in srv.fn.delete_files.__doc__
    finally:
        srv.close()


def test_argument_sentences() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"description": "Ends well."},
            "b": {"description": "Asks why?"},
            "c": {"title": "A title that says more"},
            "d": {"title": "D"},
            "e": {"description": "Two lines\n  and the second"},
            "f": {},
            "g": {"description": "(quoted.)"},
            "h": {"description": "Optional, and says so"},
        },
        "required": ["d", "f"],
    }
    doc = tool_docstring(None, schema, None, server="s", tool="x")
    assert doc.split("Args:\n", 1)[1].split("\n\n", 1)[0].splitlines() == [
        "    a: Ends well. Optional.",
        "    b: Asks why? Optional.",
        "    c: A title that says more. Optional.",
        "    d: Required.",
        "    e: Two lines",
        "        and the second. Optional.",
        "    f: Required.",
        "    g: (quoted.) Optional.",
        "    h: Optional, and says so.",
    ]


# -- generated names

AWKWARD = [
    "",
    "_",
    "__",
    "_by_tool",
    "_names",
    "_server",
    "__init__",
    "__dict__",
    "__class__",
    "__listing__",
    "_ipython_display_",
    "_repr_html_",
    "_ipython_canary_method_should_not_exist_",
    "tool__init__",
    "tool_",
    "class",
    "match",
    "type",
    "None",
    "2fa",
    "_2fa",
    "get-weather",
    "get_weather",
    "get_weather_2",
    "ﬁle",
    "file",
    "x²",
    "ℌ",
    "é",
    "e\u0301",
    "arguments",
    "arguments_",
    "first-day",
    "sync",
    "tool",
    "\u202e",
    "\x1b[2J",
    "名前",
    "a b",
    *keyword.kwlist,
]
NAMES = st.one_of(
    st.sampled_from(AWKWARD), st.text(max_size=12), st.from_regex(r"\A_{0,2}[a-z_]{0,6}_{0,2}\Z")
)
SETTINGS = settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
OWN_ATTRIBUTES = set(dir(ToolFunctions))


def _read_as(name: str) -> str:
    """The attribute a cell's `srv.fn.<name>` asks for (Python normalises identifiers in source)."""
    node = ast.parse(f"fn.{name}", mode="eval").body
    assert isinstance(node, ast.Attribute)
    return node.attr


@SETTINGS
@given(st.lists(NAMES, unique=True, max_size=12))
def test_generated_tool_names(names: list[str]) -> None:
    found = python_names(names)
    assert list(found.values()) == names  # every tool, once, in the listing's order
    for py, name in found.items():
        assert py.isidentifier() and not keyword.iskeyword(py), py
        assert unicodedata.normalize("NFKC", py) == py and _read_as(py) == py
        assert not (py.startswith("_") and py.endswith("_")) and py not in OWN_ATTRIBUTES, py
        as_written = unicodedata.normalize("NFKC", name) == name
        if name.isidentifier() and not keyword.iskeyword(name) and as_written:
            assert py == name or (name.startswith("_") and name.endswith("_"))
    tools = [t.Tool(name=name, input_schema={"type": "object", "properties": {}}) for name in names]
    fn = ToolFunctions(tools, "s", _never_called, _never_called_sync)
    assert len(fn) == len(names) and list(fn) == list(found) and dir(fn) == sorted(found)
    for py, name in found.items():
        assert getattr(fn, py).tool.name == name and fn[name] is getattr(fn, py) is fn[py]
    assert all(get_real_method(fn, method) is None for method in IPYTHON_METHODS)
    assert repr(fn).startswith("<tools of 's' as functions:")


@SETTINGS
@given(
    st.lists(NAMES, unique=True, max_size=8),
    st.data(),
    st.booleans(),
)
def test_generated_property_names(props: list[str], data: st.DataObject, more: bool) -> None:
    required = data.draw(st.lists(st.sampled_from(props), unique=True) if props else st.just([]))
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {p: {"type": "string", "description": p} for p in props},
        "required": required,
        "additionalProperties": more,
    }
    sig = tool_signature(schema, None)  # never a duplicate parameter
    params = sig.parameters
    named = [p for p in params.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    catch_all = [p.name for p in params.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    assert {p.name for p in named} <= set(props)
    assert all(name not in props for name in catch_all)
    passed = {p: f"v{i}" for i, p in enumerate(props)}
    by_name = {p: v for p, v in passed.items() if p in params}
    rest = {p: v for p, v in passed.items() if p not in params}
    assert not rest or catch_all
    for name in by_name:
        assert _read_as(name) == name  # a parameter is what a cell's `name=` passes
    assert bind_arguments(sig, schema, "f", (), {**by_name, **rest}) == passed
    doc = tool_docstring(None, schema, None, server="s", tool="t")
    assert shown(doc) == doc  # nothing left to make visible


async def _never_called(name: str, arguments: dict[str, Any]) -> t.CallToolResult:
    raise AssertionError("not called")


def _never_called_sync(name: str, arguments: dict[str, Any]) -> t.CallToolResult:
    raise AssertionError("not called")
