"""A completion request sends what is typed (the partial value, the other fields): against a raw server that
quotes it every way (tests/servers/hostile_completing.py), none of it reaches the process's stdout or stderr,
our or the SDK's log records, the wire, a listing, a widget model or the history; a masked field's value is
not sent at all; a malformed answer is `MalformedAnswer` in one line."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import traceback
from pathlib import Path

import ipywidgets as w
import pytest

from mcp_widgets.client import connect_sync
from mcp_widgets.core import redaction
from mcp_widgets.core.exceptions import MalformedAnswer
from mcp_widgets.core.history import default_history

pytestmark = pytest.mark.timeout(60)
SERVER = [sys.executable, str(Path(__file__).resolve().parents[2] / "servers" / "hostile_completing.py")]
PIN = "Secret-PIN-4815"
NOTE = "Zq-note-6180"


def models() -> set[str]:
    return set(w.Widget.widgets)


def test_nothing_a_completion_sends_is_kept_shown_or_logged(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    name = "hostile-completing-1"
    with connect_sync(SERVER, name=name, log_level="debug") as srv:
        before = models()
        for value in (f"{NOTE}-a", f"list-{NOTE}", f"ask-{NOTE}"):
            context = {"user": f"{NOTE}-u"}
            got = srv.complete_sync(prompt="login", argument="note", value=value, context=context)
            assert got.values == ["one", "two"]
        asyncio.run(srv.list_tools())
        names = [t.name for t in srv.tools]
        assert "hello" in names and any(n.startswith("greet_") for n in names)
        asyncio.run(asyncio.sleep(0.3))  # the duplicate replies, the late lines
        kept = json.dumps(srv.wire.records(), ensure_ascii=False)
        saved = srv.wire.text()
        assert "completion/complete" in kept and "[redacted]" in kept
        assert models() == before  # the question asked during a completion: no widget model
        assert default_history().records(name) == []  # and no history row
    out, err = capfd.readouterr()
    for where in (out, err, caplog.text, kept, saved, repr(names)):
        assert NOTE.lower() not in where.lower()


def test_a_masked_field_is_not_sent_with_another_fields_completion() -> None:
    async def scenario() -> None:
        with connect_sync(SERVER, name="hostile-completing-2") as srv:
            form = srv.prompt_form("login")
            assert "pin" not in form.suggesting  # never completed
            form.fill(user="ann", pin=PIN)
            form.fill(note="quiet")
            got = await form.wait_suggestions("note")
            assert got is not None and got.values == ["user"]  # the context's names: no pin
            assert srv.complete_sync(
                prompt="login", argument="note", value="quiet", context={"user": "ann", "pin": PIN}
            ).values == ["user"]
            form.close()

    asyncio.run(scenario())


def test_a_malformed_completion_answer_is_one_line_without_the_payload() -> None:
    with connect_sync(SERVER, name="hostile-completing-3") as srv, pytest.raises(MalformedAnswer) as caught:
        srv.complete_sync(prompt="login", argument="note", value=f"str-{NOTE}")
    exc = caught.value
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    assert "\n" not in text and "malformed" in text and "completion.values" in text
    assert exc.__cause__ is None and exc.__suppress_context__
    assert NOTE not in "".join(traceback.format_exception(exc))


def test_typing_builds_one_matcher_per_new_value_not_the_whole_pattern(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each keystroke's request adds one value: only its matcher is built, when first searched with (by the
    log guard, the wire); the other fields' and the earlier values' matchers are kept, not rebuilt."""
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger("mcp_widgets")
    with connect_sync(SERVER, name="hostile-completing-4") as srv:
        context = {"user": f"{NOTE}-user"}
        srv.complete_sync(prompt="login", argument="note", value="quiet-0", context=context)
        srv.wire.records()
        log.debug("searched with what was typed")
        built = redaction.BUILDS
        typed = "quiet-abcdefgh"
        for n in range(6, len(typed) + 1):
            srv.complete_sync(prompt="login", argument="note", value=typed[:n], context=context)
            srv.wire.records()
            log.debug("after %s", n)
        assert redaction.BUILDS - built == len(typed) + 1 - 6


def test_a_long_value_typed_on_keeps_only_its_newest_spelling() -> None:
    """A pasted note typed on sends a new long value per keystroke: the earlier ones are runs of the newest
    (matched as such), so one matcher is kept for them, not one each (each is a long value's index)."""
    from mcp_widgets.client.privacy import Completing, LateLines

    note = " ".join(f"w{n * 7919 % 100003:x}" for n in range(1_000))[:5_000]
    late = LateLines()
    for n in range(4_000, 4_010):
        late.completing(Completing("completing 'note'", [note[:n], "ann"]))
    assert late.texts() == {note[:4_009], "ann"}
    assert late.scrub(f"you said {note[:4_000]}!") == "you said [redacted]!"
    assert late.scrub(f"you said {json.dumps(note[:3_000])}") == 'you said "[redacted]"'
