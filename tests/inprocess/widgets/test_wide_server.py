"""A server with huge listings and long texts (tests/servers/wide.py, in process; issue 48).

A template of 10,000 variables, a tool requiring 10,000 properties, a prompt of 10,000 arguments: opening a
form and a keystroke in it is linear work (calls counted at 1,000 and 10,000, with comms that send each
model's state as a kernel's do), and what the form says stays short. Text of 1 MB (a listing's row, a tool's
description, a broken template) and a prompt of 10,000 messages are shown clipped; asking for what is not
listed, or a template that is none, reads as one line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_widgets.client import Server, connect_sync
from mcp_widgets.client.results import result_text
from mcp_widgets.core.tools.schema import ARGUMENTS
from mcp_widgets.core.tools.signature import ToolError
from mcp_widgets.core.uri_template import TemplateError
from tests.inprocess.work import linear
from tests.servers.wide import build_server, template_text

pytestmark = pytest.mark.timeout(120)

SIZES = (1_000, 10_000)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[int, Server]]:
    made = {n: connect_sync(build_server(n, size=1_000_000)) for n in SIZES}
    yield made
    for srv in made.values():
        srv.close()


def opened(srv: Server, kind: str, n: int) -> Any:
    if kind == "tool":
        return srv.form("wide")
    if kind == "prompt":
        return srv.prompt_form("wide")
    return srv.template_form(template_text(n))


FIRST = {"tool": "p0", "prompt": "a0", "template": "v0"}


@pytest.mark.parametrize("kind", ["template", "tool", "prompt"])
def test_opening_a_form_of_10000_fields_and_a_keystroke_in_it_are_linear_work(
    servers: dict[int, Server], kind: str, kernel_comms: Any
) -> None:
    def open_and_type(n: int) -> None:
        form = opened(servers[n], kind, n)
        try:
            form.fill(**{FIRST[kind]: "x"})
            errors = form.errors
            assert FIRST[kind] not in errors and len(errors) == 100  # 99 fields shown, one line for the rest
            assert all(len(message) < 400 for message in errors.values())
        finally:
            form.close()

    few, many = linear(open_and_type)
    assert many > 2 * few  # it was counted


def test_what_a_template_form_of_10000_variables_says_is_short(servers: dict[int, Server]) -> None:
    form = servers[10_000].template_form(template_text(10_000))
    try:
        form.fill(v0="x")
        assert form.errors[ARGUMENTS].startswith("missing 'v100'")
        texts = [str(getattr(c, "value", "")) for c in form.children] + [form._run.tooltip]
        assert max(len(text) for text in texts) < 5_000
        assert texts[0].startswith("wide — resource template wide://{v0}")
        assert texts[0].split(" more characters) on ")[1].startswith("wide")  # the template cut, not the name
    finally:
        form.close()


def one_line(error: BaseException) -> str:
    (line,) = error._render_traceback_()  # type: ignore[attr-defined]
    assert "\n" not in line and error.__cause__ is None and error.__context__ is None
    return str(line)


@pytest.mark.parametrize("kind", ["form", "prompt_form", "template_form"])
def test_what_is_not_listed_reads_as_one_line(servers: dict[int, Server], kind: str) -> None:
    with pytest.raises(KeyError) as caught:
        getattr(servers[10_000], kind)("nope")
    line = one_line(caught.value)
    assert "lists no" in line and "'nope'" in line and len(line) < 1_000  # the 70 KB template is clipped


def test_a_template_error_reads_as_one_line_and_is_clipped(servers: dict[int, Server]) -> None:
    srv = servers[10_000]
    with pytest.raises(TemplateError) as broken:
        srv.template_form("broken")
    with pytest.raises(TemplateError) as unknown:
        srv.read_template_sync(template_text(10_000), {"nope": "x"})
    for error in (broken.value, unknown.value):
        line = one_line(error)
        assert len(line) < 1_000 and "more characters)" in line
    assert isinstance(unknown.value, ValueError)  # code that caught a ValueError still does


def test_the_explorers_rows_are_clipped(servers: dict[int, Server]) -> None:
    explorer = servers[1_000].explore()
    try:
        rows = [row for section in ("Tools", "Resources", "Templates") for row in explorer.items(section)]
        assert max(len(row) for row in rows) < 400  # a 1 MB resource name, a 1 MB broken template
        assert any(row.startswith("long://row — LLL") and row.endswith(" more characters)") for row in rows)
        assert explorer.open_item("Templates", template_text(1_000)) is not None  # opened by its whole key
    finally:
        explorer.close()


def test_a_tools_description_is_clipped(servers: dict[int, Server]) -> None:
    form = servers[1_000].form("described")  # a 1 MB description
    try:
        texts = [str(getattr(c, "value", "")) for c in form.children]
        assert max(len(text) for text in texts) < 2_100
        assert any(text.endswith(" more characters)") for text in texts)
    finally:
        form.close()


def test_a_prompt_of_many_messages_shows_the_first_and_counts_the_rest(servers: dict[int, Server]) -> None:
    srv = servers[1_000]
    text = result_text(srv.get_prompt_sync("chatty", {}))  # 1,000 messages
    assert text.startswith("1000 messages:\n[user]\nmessage 0\n")
    assert text.endswith("message 199\n… (800 more messages: the result's .messages has them all)")
    form = srv.prompt_form("chatty")
    try:
        form.run()
        asyncio.run(form.wait())
        assert len(form.result_text) < 5_000 and "… (800 more messages" in form.result_text
    finally:
        form.close()


def test_a_tools_refusal_through_its_function_is_one_clipped_line(servers: dict[int, Server]) -> None:
    with pytest.raises(ToolError) as caught:
        servers[1_000].fn.refuse.sync()  # an error result of 1 MB
    line = one_line(caught.value)
    assert line.endswith("… (998000 more characters)") and len(line) < 2_200
    assert len(caught.value.result.content[0].text) == 1_000_000  # the result is whole


def test_what_is_refused_before_sending_names_the_arguments_clipped(servers: dict[int, Server]) -> None:
    srv = servers[10_000]
    with pytest.raises(TypeError) as prompt:
        srv.get_prompt_sync("wide", {"a0": "x"})  # 9,999 required arguments missing
    with pytest.raises(ValueError) as uri:
        srv.read_resource_sync(template_text(10_000))  # a URI with 10,000 variables left in
    for error in (prompt.value, uri.value):
        line = one_line(error)
        assert len(line) < 1_500 and "more characters)" in line, line[:3_000]
    assert "it needs the arguments 'a1', 'a2', " in one_line(prompt.value)


def test_a_tool_forms_error_result_is_clipped(servers: dict[int, Server]) -> None:
    form = servers[1_000].form("refuse")  # an error result of 1 MB
    try:
        form.run()
        asyncio.run(form.wait())
        text = form.result_text
        assert text.startswith("⚠ The tool reported an error:\nLLL") and len(text) < 10_200
        assert "(cut at 10,000 characters; see form.result)" in text
        shown = "".join(str(o.get("text", "")) for o in form._out.outputs)
        assert len(shown) < 10_200 and "(cut at 10,000 characters" in shown
        assert len(form.result.content[0].text) == 1_000_000  # the result is whole
    finally:
        form.close()


def test_completing_what_is_not_listed_quotes_the_listed_names_clipped() -> None:
    from mcp_widgets.client.completion import _known

    class Listed:
        def __init__(self, name: str) -> None:
            self.uri_template = name

    said = _known([Listed("x" * 70_000), *(Listed(f"t{i}") for i in range(5_000))], "uri_template")
    assert len(said) < 1_000 and "more characters)" in said
