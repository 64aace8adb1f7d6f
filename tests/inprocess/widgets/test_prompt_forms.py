"""Prompt and resource-template forms against a real in-process MCPServer: fill, run, read what comes back.

A prompt and a tool share a name here, prompts have names no identifier has, and templates use the RFC 6570
operators that encode differently. What is typed into either form is a typed value: in no wire record,
history, log or repr, and in no widget model once the form is closed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import ipywidgets as w
import mcp_types
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage

from mcp_widgets import handlers
from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.uri_template import TemplateError
from mcp_widgets.widgets import PromptForm, TemplateForm

from .conftest import HOSTILE, live_models, own_models

pytestmark = pytest.mark.timeout(60)

CANARY = "Canary-Zoé-7731"
ODD = "Grüße, Welt! / v2.prompt"
"""A prompt name with spaces, punctuation, a slash and non-ASCII letters."""
EVIL_NAME = "evil\u202egnp.exe\x1b[31mred"
"""A prompt name with a bidi override and an ANSI escape."""
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def build() -> MCPServer:
    server = MCPServer("explore")

    @server.tool(name="greet", description="The tool called greet.")
    def greet_tool(who: str) -> str:
        return f"tool says hi to {who}"

    @server.prompt(name="greet", title="Greeting", description="The prompt called greet.")
    def greet_prompt(who: str, mood: str = "warm") -> list[Any]:
        return [
            UserMessage(f"Say hello to {who}, {mood}ly."),
            AssistantMessage(mcp_types.ImageContent(type="image", data=PIXEL, mime_type="image/png")),
            UserMessage(
                mcp_types.EmbeddedResource(
                    type="resource",
                    resource=mcp_types.TextResourceContents(uri="notes://hello", text=f"notes for {who}"),
                )
            ),
        ]

    @server.prompt(name=ODD, description="Oddly named.")
    def odd() -> str:
        return "odd prompt here"

    @server.prompt(name="GREET", description="Same letters, other case.")
    def shouting(who: str) -> str:
        return f"HELLO {who}"

    @server.prompt(name="hostile", title="Title " + HOSTILE, description="Says " + HOSTILE)
    def hostile() -> str:
        return "Result " + HOSTILE

    @server.prompt(name="sign-in", description="A password-like argument.")
    def sign_in(user: str, api_key: str) -> str:
        return f"signed in {user}"

    @server.prompt(name="me", description="An argument named self.")
    def me(self: str) -> str:  # a prompt argument named self, not a method
        return f"me is {self}"

    @server.prompt(name=EVIL_NAME, description="Its name is hostile.")
    def evil() -> str:
        return "evil"

    @server.resource("notes://{topic}/{+rest}{?lang}", name="Notes", title="Notes by topic")
    def notes(topic: str, rest: str, lang: str = "en") -> str:
        return f"notes on {topic} under {rest} in {lang}"

    @server.resource("files://{/path*}", name="Files")  # (MCPServer cannot read it: only its form is used)
    def files(path: str) -> str:
        return f"file at {path}"

    @server.tool(description="Echoes a list.")
    def tags(items: list[str]) -> str:
        return "tags: " + ", ".join(items)

    @server.resource("ask://{thing}", name="Asking")
    async def asking(thing: str, ctx: Context[Any, Any]) -> str:
        await ctx.session.elicit_form(
            "Why do you read it?", {"type": "object", "properties": {"why": {"type": "string"}}}
        )
        return f"read {thing}"

    return server


@pytest.fixture
def srv() -> Iterator[Server]:
    server = connect_sync(build(), mode="legacy", handler=handlers.scripted([{"why": "curious"}] * 5))
    yield server
    server.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def ran(form: Any) -> Any:
    call = form.run()
    assert call is not None, form.errors
    return await form.wait()


def labels(form: Any) -> list[str]:
    return [c.value for c in form.children if isinstance(c, w.Label) and c.value]


# --------------------------------------------------------------------------- prompts


def test_a_prompt_form_marks_required_arguments_and_refuses_until_they_are_given(srv: Server) -> None:
    form = srv.prompt_form("greet")
    assert isinstance(form, PromptForm) and form.field_names == ("who", "mood")
    assert labels(form)[:2] == ["Greeting — prompt greet on explore", "The prompt called greet."]
    controls = {name: f.control for name, f in form._fields.items()}
    assert controls["who"].description == "Who *" and controls["mood"].description == "Mood"
    assert form.errors == {"who": "required"} and form._run.disabled
    assert form.run() is None  # refused in the form: nothing is sent
    assert "Still to fix: Who" in form._run.tooltip
    assert not srv.wire.records(method="prompts/get")
    form.close()


def test_next_to_a_disabled_run_the_form_says_why(srv: Server) -> None:
    """Not only in Run's tooltip (seen by a person who hovers): on a line next to the button."""
    form = srv.prompt_form("greet")
    assert (form._why.value, form._why.layout.display) == ("To run: fill in Who", None)
    form.fill(who="Ada")
    assert (form._why.value, form._why.layout.display) == ("", "none")
    assert not form._run.disabled
    form.fill(who="")
    assert form._why.value == "To run: fill in Who"
    form.close()
    template = srv.template_form("notes://{topic}/{+rest}{?lang}")
    assert template._why.value == "To read: fill in Topic, Rest"
    template.close()


def test_a_prompt_argument_named_self_is_filled_from_code(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("me")
        form.fill(self="Ada")  # was a TypeError: fill's own `self`
        await ran(form)
        assert "me is Ada" in form.result_text
        form.close()

    run(scenario())


def test_run_s_tooltip_shows_a_hostile_prompt_name_as_text(srv: Server) -> None:
    form = srv.prompt_form(EVIL_NAME)
    tip = form._run.tooltip
    assert tip == "Get the prompt evilU+202Egnp.exe\\x1b[31mred from explore", tip
    assert "\u202e" not in tip and "\x1b" not in tip
    form.close()


def test_a_prompt_and_a_tool_of_the_same_name_never_collide(srv: Server) -> None:
    async def scenario() -> None:
        prompt = srv.prompt_form("greet")
        tool = srv.form("greet")
        assert prompt.field_names == ("who", "mood") and tool.field_names == ("who",)
        prompt.fill(who="Ada")
        tool.fill(who="Ada")
        got = await ran(prompt)
        called = await ran(tool)
        assert isinstance(got, mcp_types.GetPromptResult) and got is prompt.result
        assert isinstance(called, mcp_types.CallToolResult)
        assert "Say hello to Ada, warmly." in prompt.result_text
        assert "tool says hi to Ada" in tool.result_text and "Say hello" not in tool.result_text
        prompt.close()
        tool.close()

    run(scenario())


def test_the_result_shows_roles_text_images_and_embedded_resources(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("greet")
        form.fill(who="Ada", mood="cheerful")
        result = await ran(form)
        assert [m.role for m in result.messages] == ["user", "assistant", "user"]
        text = form.result_text
        lines = text.splitlines()
        assert lines[:4] == [
            "The prompt called greet.",
            "3 messages:",
            "[user]",
            "Say hello to Ada, cheerfully.",
        ]
        assert "[assistant]" in lines and "[image: image/png, 70 B]" in text
        assert "Embedded resource: notes://hello" in text and "notes for Ada" in text
        # the image renders (under the text, as a tool form's)
        images = [o for o in form._out.outputs if "image/png" in (o.get("data") or {})]
        assert len(images) == 1 and images[0] is form._out.outputs[-1]
        # the status line says it is done, without the result twice
        status = [o for o in form._out.outputs if (o.get("metadata") or {}).get("mcp_widgets_call")]
        assert status and "Say hello" not in json.dumps(status)
        assert "prompt 'greet' on 'explore': done" in json.dumps(status)
        form.close()

    run(scenario())


def test_prompts_are_reached_by_their_exact_name_however_it_is_spelled(srv: Server) -> None:
    async def scenario() -> None:
        odd = srv.prompt_form(ODD)
        assert odd.field_names == () and not odd._run.disabled  # nothing to fill in: Run at once
        await ran(odd)
        assert "odd prompt here" in odd.result_text
        shouting = srv.prompt_form("GREET")
        shouting.fill(who="Ada")
        await ran(shouting)
        assert "HELLO Ada" in shouting.result_text
        odd.close()
        shouting.close()

    run(scenario())
    with pytest.raises(KeyError, match=r"lists no prompt named 'Greet'.*prompts: greet, "):
        srv.prompt_form("Greet")


def test_prompt_text_from_the_server_stays_text(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("hostile")
        assert labels(form)[:2] == [f"Title {HOSTILE} — prompt hostile on explore", f"Says {HOSTILE}"]
        await ran(form)
        assert f"Result {HOSTILE}" in form.result_text
        html = [str((o.get("data") or {}).get("text/html", "")) for o in form._out.outputs]
        assert not [h for h in html if "<img" in h or "<script" in h]  # the call's line, escaped if any
        form.close()

    run(scenario())


def test_a_tool_form_for_a_prompt_name_points_to_the_prompt_form(srv: Server) -> None:
    with pytest.raises(
        KeyError, match=r"lists no tool named 'sign-in' but a prompt: srv.prompt_form\('sign-in'\)"
    ):
        srv.form("sign-in")


def test_a_server_template_that_is_no_template_is_refused_saying_so(srv: Server) -> None:
    bad = mcp_types.ResourceTemplate(name="bad", uri_template="notes://{topic")
    with pytest.raises(TemplateError, match=re.escape("'notes://{topic' is not an RFC 6570 URI template")):
        TemplateForm(srv, bad, str)


def test_model_counts(srv: Server, baseline: int) -> None:
    prompt = srv.prompt_form("greet")
    # as a tool form's: 2 fields (a control and a note each), 2 header lines, the problem line, Run, Stop,
    # Copy as code, the line why Run is disabled, their box, the result area, the CSS carrier and the form
    assert len(own_models()) - baseline == 15
    prompt.close()
    template = srv.template_form("notes://{topic}/{+rest}{?lang}")
    assert len(own_models()) - baseline == 17  # 3 fields, 1 header line (no description), the "Reads:" line
    template.close()
    assert len(own_models()) == baseline


def test_password_like_prompt_arguments_are_masked(srv: Server) -> None:
    form = srv.prompt_form("sign-in")
    assert isinstance(form._fields["api_key"].control, w.Password)
    assert isinstance(form._fields["user"].control, w.Text)
    form.close()


# --------------------------------------------------------------------------- templates


def test_a_template_form_shows_the_uri_it_will_read_and_reads_it(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.template_form("notes://{topic}/{+rest}{?lang}")
        assert isinstance(form, TemplateForm) and form.field_names == ("topic", "rest", "lang")
        assert (
            labels(form)[0] == "Notes by topic — resource template notes://{topic}/{+rest}{?lang} on explore"
        )
        assert form._run.description == "Read" and form._run.disabled
        assert form.errors == {"topic": "required", "rest": "required"}  # a query parameter may be left out
        assert "Reads: (fill in Topic, Rest)" in labels(form)
        form.fill(topic="a b/c", rest="x/y z")
        # each operator encodes as RFC 6570 says: `{topic}` encodes the slash, `{+rest}` keeps it
        assert form.uri == "notes://a%20b%2Fc/x/y%20z"
        assert "Reads: notes://a%20b%2Fc/x/y%20z" in labels(form)
        result = await ran(form)
        assert isinstance(result, mcp_types.ReadResourceResult) and form.result is result
        assert form.result_text.splitlines() == [
            "Resource: notes://a%20b%2Fc/x/y%20z (text/plain)",
            "notes on a b/c under x/y z in en",
        ]
        form.fill(lang="nb")
        assert form.uri == "notes://a%20b%2Fc/x/y%20z?lang=nb"
        await ran(form)
        assert "in nb" in form.result_text and "in en" not in form.result_text
        form.close()

    run(scenario())


def test_an_exploded_variable_takes_one_item_per_line(srv: Server) -> None:
    form = srv.template_form("Files")  # by its name too
    assert form.tool_name == "files://{/path*}"
    assert "One item per line." in form._fields["path"].note.value
    form.fill(path=["docs", "a/b"])
    assert form.uri == "files:///docs/a%2Fb"
    form.fill(path="one\ntwo words")
    assert form.uri == "files:///one/two%20words"
    form.close()
    with pytest.raises(KeyError, match=r"lists no resource template 'nope'.*notes://\{topic\}"):
        srv.template_form("nope")


def test_read_template_is_one_call_and_refuses_an_unexpanded_template(srv: Server) -> None:
    result = srv.read_template_sync(
        "notes://{topic}/{+rest}{?lang}", {"topic": "t", "rest": "r/s", "lang": "de"}
    )
    assert result.contents[0].uri == "notes://t/r/s?lang=de"
    assert result.contents[0].text == "notes on t under r/s in de"
    template = srv.resources.templates[0]
    again = run(srv.read_template(template, {"topic": 1, "rest": "2"}))  # the listing's object, numbers
    assert again.contents[0].text == "notes on 1 under 2 in en"
    before = len(srv.wire.records(method="resources/read"))
    with pytest.raises(TemplateError, match=r"needs a value for 'rest'$"):
        srv.read_template_sync("notes://{topic}/{+rest}{?lang}", {"topic": CANARY})
    with pytest.raises(
        TemplateError, match=r"has no variable 'topc' \(its variables: 'topic', 'rest', 'lang'\)"
    ):
        srv.read_template_sync("notes://{topic}/{+rest}{?lang}", {"topc": CANARY, "rest": CANARY})
    assert len(srv.wire.records(method="resources/read")) == before  # nothing was sent


# --------------------------------------------------------------------------- privacy


def test_what_is_typed_is_in_no_wire_record_history_log_repr_or_model(
    srv: Server, caplog: pytest.LogCaptureFixture, baseline: int
) -> None:
    async def scenario() -> list[str]:
        prompt = srv.prompt_form("greet")
        prompt.fill(who=CANARY + "-p")
        await ran(prompt)
        assert CANARY + "-p" in prompt.result_text  # the server's answer to the person is shown as is
        template = srv.template_form("ask://{thing}")
        template.fill(thing=CANARY + "-t")
        await ran(template)
        assert "read " + CANARY + "-t" in template.result_text
        # a list typed one item per line (a tool form's here) is typed too: its echo is redacted in the wire
        listed = srv.form("tags")
        listed.fill(items=["x", CANARY + "-l"])
        await ran(listed)
        assert "tags: x, " + CANARY + "-l" in listed.result_text
        reprs = [
            repr(prompt),
            repr(template),
            repr(listed),
            repr(prompt.call),
            repr(template.call),
            repr(srv),
        ]
        for form in (prompt, template, listed):
            form.close()
        return reprs

    with (
        caplog.at_level(logging.DEBUG, logger="mcp_widgets"),
        caplog.at_level(logging.DEBUG, logger="mcp.client"),
    ):
        reprs = run(scenario())
    assert not [r for r in reprs if CANARY in r]
    ours = [r for r in caplog.records if r.name.startswith(("mcp_widgets", "mcp.client"))]
    assert not [r for r in ours if CANARY in r.getMessage()]
    wire = json.dumps(srv.wire.records(), ensure_ascii=False)
    assert CANARY not in wire and CANARY.replace("é", "\\u00e9") not in wire
    sent = srv.wire.records(method="prompts/get", direction="out")
    assert [r["message"]["params"]["arguments"] for r in sent] == ["[redacted: 1 argument: who]"]
    reads = srv.wire.records(method="resources/read", direction="out")
    assert [r["message"]["params"]["uri"] for r in reads] == [
        "[redacted: a URI filled in from a template form]"
    ]
    assert len(own_models()) == baseline  # every model the forms made is closed
    states = json.dumps([m.get_state() for m in live_models().values()], default=str, ensure_ascii=False)
    assert CANARY not in states
    history = srv.history.records()  # the question the read asked, by its template
    assert [r["source"] for r in history] == [{"kind": "resource", "name": "ask://{thing}"}]
    assert CANARY not in json.dumps(history, default=str, ensure_ascii=False)


def test_a_closed_form_keeps_nothing(srv: Server, baseline: int) -> None:
    form = srv.template_form("notes://{topic}/{+rest}{?lang}")
    form.fill(topic=CANARY, rest="r")
    form.close()
    form.close()  # twice is fine
    assert len(own_models()) == baseline
    with pytest.raises(Exception, match="the template form is closed"):
        form.fill(topic="x")


# --------------------------------------------------------------------------- copy as code


def test_copy_as_code_for_a_prompt_and_a_template(srv: Server) -> None:
    prompt = srv.prompt_form("sign-in")
    prompt.fill(user="ada", api_key="k-" + "9" * 12)
    assert prompt.code == (
        'await srv.get_prompt("sign-in", {"user": "ada", "api_key": ...})  # fill in "api_key": not copied'
    )
    template = srv.template_form("notes://{topic}/{+rest}{?lang}")
    template.fill(topic="mcp", rest="a/b")
    assert template.code.startswith('await srv.read_template("notes://{topic}/{+rest}{?lang}", {')
    assert '"topic": "mcp"' in template.code and '"rest": "a/b"' in template.code
    prompt.close()
    template.close()
