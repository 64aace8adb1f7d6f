"""`Server` as a facade: its settings are checked when set as `connect` checks them, each kind of request
comes in the same three forms from one builder, and `connect`'s docstring names what it takes. Real
servers, in process and over stdio."""

from __future__ import annotations

import inspect
import math
import re
import traceback
from typing import Any

import ipywidgets as w
import pytest

from mcp_widgets import MCPWidgetsError, connect, connect_sync, handlers
from mcp_widgets.client import Server
from mcp_widgets.client.context import Setting
from tests.servers.launch import stdio_command
from tests.servers.runaway import build_server

MODES = ["auto", "legacy"]
WRONG: dict[str, list[Any]] = {
    "name": [5, "", "   ", None],
    "handler": ["accept", 5],
    "mode": ["fast", 2026, None],
    "timeout": [0, -1, "5", True, math.nan],
    "answer_timeout": [0, "10", False],
    "output": ["cell", 3, w.Label()],
    "log_level": ["loud", 3],
    "max_questions": ["5", 0, (1, 2, 3), (0, 5), 2.5, True],
}
"""Wrong values of each setting a server has (`Setting`): each raises where it is set."""


def one_line(exc: BaseException) -> str:
    assert exc.__cause__ is None and exc.__suppress_context__
    assert exc.__traceback__ is None or exc.__traceback__.tb_next is None  # none of the client's frames
    lines = traceback.format_exception_only(type(exc), exc)
    assert len(lines) == 1
    return lines[0].strip()


def test_every_setting_of_a_server_is_tried_here() -> None:
    settings = {name for name, value in vars(Server).items() if isinstance(value, Setting)}
    assert settings == set(WRONG)


@pytest.mark.parametrize("mode", MODES)
def test_max_questions_set_as_an_int_bounds_the_next_call(mode: str) -> None:
    # Stored as it was given, the next question failed in the client thread: "cannot unpack non-iterable int".
    with connect_sync(build_server(), handler=handlers.accept_defaults, mode=mode) as srv:
        srv.max_questions = 5
        assert srv.max_questions == (5, 5)
        assert srv.call_tool_sync("ask", {"count": 1}).content[0].text == "asked 1"  # type: ignore[union-attr]
        with pytest.raises(MCPWidgetsError, match="max_questions") as caught:
            srv.call_tool_sync("ask", {"count": 6})
        assert type(caught.value).__name__ == "TooManyQuestions"
        srv.max_questions = (10, 2)
        assert srv.call_tool_sync("ask", {"count": 6}).content[0].text == "asked 6"  # type: ignore[union-attr]


def test_each_setting_set_wrong_raises_one_line_and_keeps_the_old_value() -> None:
    with (
        connect_sync(build_server(), name="other") as other,
        connect_sync(build_server(), handler=handlers.accept_defaults, timeout=30) as srv,
    ):
        for field, values in {**WRONG, "name": [*WRONG["name"], other.name]}.items():
            before = getattr(srv, field)
            for value in values:
                with pytest.raises((TypeError, ValueError)) as caught:
                    setattr(srv, field, value)
                line = one_line(caught.value)
                assert re.search(rf"\b{field}\b|another name=", line), line
                assert getattr(srv, field) == before, field
        assert srv.call_tool_sync("ask", {"count": 2}).content[0].text == "asked 2"  # type: ignore[union-attr]


def test_right_values_are_kept_as_connect_keeps_them() -> None:
    with connect_sync(build_server(), handler=handlers.accept_defaults) as srv:
        srv.log_level = "WARNING"
        srv.timeout, srv.answer_timeout, srv.output = 20, 1.5, w.Output()
        srv.name = "renamed"
        srv.name = "renamed"  # its own name is not another's
        srv.mode, srv.handler = "legacy", None
        assert (srv.log_level, srv.timeout, srv.answer_timeout, srv.name) == ("warning", 20, 1.5, "renamed")
        srv.output = None
        srv.handler = handlers.accept_defaults
        assert srv.call_tool_sync("ask", {"count": 1}).content[0].text == "asked 1"  # type: ignore[union-attr]


@pytest.mark.parametrize("field", sorted(set(WRONG) - {"name"}))
def test_connect_refuses_the_same_wrong_values_before_starting(field: str) -> None:
    for value in WRONG[field]:
        with pytest.raises((TypeError, ValueError)) as caught:
            connect_sync(build_server(), **{field: value})
        assert field in one_line(caught.value)


KINDS = {
    "call_tool": "_tool",
    "get_prompt": "_prompt",
    "read_resource": "_resource",
    "read_template": "_template",
    "complete": "_completion",
}


@pytest.mark.parametrize("method", sorted(KINDS))
def test_each_kind_comes_in_the_same_forms_from_its_builder(method: str) -> None:
    build = inspect.signature(getattr(Server, KINDS[method]))
    forms = [method, f"{method}_sync"] + ([] if method == "complete" else [f"{method}_background"])
    for name in forms:
        variant = getattr(Server, name)
        assert variant.__name__ == name and variant.__doc__
        signature = inspect.signature(variant)
        assert list(signature.parameters) == list(build.parameters)
        assert "typed" not in signature.parameters  # a form's own way in, not a public argument
        assert signature.parameters == build.parameters
    assert inspect.iscoroutinefunction(getattr(Server, method))
    assert not inspect.iscoroutinefunction(getattr(Server, f"{method}_sync"))


def test_a_resource_is_read_the_same_way_in_each_form() -> None:
    with connect_sync(stdio_command()) as srv:
        uri = "demo://motto"
        waited = srv.read_resource_sync(uri)
        started = srv.read_resource_background(uri).future.result(timeout=30)
    assert waited.contents == started.contents


def test_connects_docstring_names_every_argument_it_takes() -> None:
    doc = inspect.getdoc(connect) or ""
    args = doc.split("Args:", 1)[1].split("Raises:", 1)[0]
    named = re.findall(r"^ {4}(\w+):", args, flags=re.MULTILINE)
    assert named == list(inspect.signature(connect).parameters)
    assert list(inspect.signature(connect_sync).parameters) == named
