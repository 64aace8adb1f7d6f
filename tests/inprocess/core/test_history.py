"""The history store: what a record keeps (and never keeps), bounds, filters, listeners, threads."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from mcp_widgets.core.history import (
    MAX_RECORDS,
    MAX_TEXT,
    RECORD_KEYS,
    AskedField,
    History,
    HistoryRecord,
    Source,
    answered_by,
    default_history,
)
from mcp_widgets.core.outcome import Action, Outcome, Reason

CANARY = "canary-store-8d2e"


def add(history: History, server: str = "shop", **kw: Any) -> HistoryRecord:
    kw.setdefault("mode", "form")
    kw.setdefault("message", "Sign up?")
    return history.begin_request(server=server, **kw)


def record_card(history: History, card: Any, source: tuple[str, str] | None = None) -> HistoryRecord:
    """What the client does with a card it shows: record the plain values asked; its done callback ends it."""
    record = history.begin(
        server=card.server,
        mode=card.kind,
        message=card.message,
        declared_name=card.declared_name,
        source=source,
        url=card.url if card.kind == "url" else None,
        fields=card.spec.fields if card.kind == "form" else (),
    )
    card.add_done_callback(lambda done: history.finish(record.id, done.outcome))
    return history.get(record.id) or record


# -- what a record is ----------------------------------------------------------------------------------------
def test_a_record_has_exactly_the_allowed_fields() -> None:
    names = [f.name for f in dataclasses.fields(HistoryRecord)]
    assert names == [
        "id",
        "asked_at",
        "server",
        "mode",
        "message",
        "declared_name",
        "source",
        "url_host",
        "fields",
        "scopes",
        "outcome",
        "duration",
        "started",
    ]
    assert AskedField._fields == ("name", "title", "required")
    assert Source._fields == ("kind", "name")


def test_plain_records_carry_exactly_the_allowed_keys_and_are_json() -> None:
    history = History()
    add(
        history,
        declared_name="Shop Server",
        source=("tool", "signup"),
        fields=[("name", "Name", True), ("age", "Age", False)],
    )
    add(history, server="auth", mode="url", url="https://login.example/x", outcome=Outcome(Action.DECLINE))
    records = history.records()
    assert [tuple(r) for r in records] == [RECORD_KEYS, RECORD_KEYS]
    url, form = records
    assert form["source"] == {"kind": "tool", "name": "signup"}
    assert form["fields"] == [
        {"name": "name", "title": "Name", "required": True},
        {"name": "age", "title": "Age", "required": False},
    ]
    assert form["outcome"] is None and form["duration"] is None and form["answered_by"] is None
    assert form["declared_name"] == "Shop Server" and form["mode"] == "form" and form["url_host"] is None
    assert url["outcome"] == {"action": "decline", "reason": "person", "by": None, "note": ""}
    assert url["url_host"] == "login.example" and url["fields"] == [] and url["source"] is None
    assert json.loads(json.dumps(records)) == records
    assert dt.datetime.fromisoformat(form["asked_at"]).tzinfo is not None


def test_records_are_frozen() -> None:
    record = add(History())
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.message = "x"  # type: ignore[misc]


def test_a_record_from_a_real_form_keeps_no_value(caplog: pytest.LogCaptureFixture) -> None:
    from mcp_widgets.widgets import ElicitationForm

    caplog.set_level(logging.DEBUG)
    history = History()
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Your name", "default": "default-canary"},
            "code": {"type": "string"},
        },
        "required": ["name"],
    }
    form = ElicitationForm("Who are you?", schema, server="shop", declared_name="Shop")
    record = record_card(history, form, source=("tool", "whoami"))
    assert record.fields == (AskedField("name", "Your name", True), AskedField("code", "code", False))
    form.fill(name=CANARY, code=CANARY)
    assert form.accept()
    assert form.result is not None and form.result.content == {"name": CANARY, "code": CANARY}
    done = history.get(record.id)
    assert done is not None and done.outcome == Outcome(Action.ACCEPT)
    assert done.answered_by == "person" and done.duration is not None
    seen = json.dumps(history.records()) + repr(done) + repr(history) + str(done.fields) + caplog.text
    assert CANARY not in seen
    assert "default-canary" not in seen  # not even the server's defaults


def test_a_url_record_keeps_the_host_only() -> None:
    from mcp_widgets.widgets import UrlCard

    history = History()
    url = f"https://user:{CANARY}@login.example.com:8443/p/{CANARY}?token={CANARY}#frag-{CANARY}"
    card = UrlCard("Log in, please", url, server="auth")
    record = record_card(history, card, source=("tool", "login"))
    assert record.mode == "url" and record.url_host == "login.example.com" and record.fields == ()
    assert card.decline()
    refused = UrlCard("Run this", f"javascript:alert('{CANARY}')", server="auth")  # resolves at once
    bad = record_card(history, refused)
    assert bad.outcome is not None and bad.outcome.reason is Reason.REFUSED_URL
    viewless = history.begin_request(server="auth", mode="url", url=f"https://x.example/?q={CANARY}#{CANARY}")
    assert viewless.url_host == "x.example"
    assert CANARY not in json.dumps(history.records()) + repr(history.entries())
    card.close()
    refused.close()


def test_sources_never_keep_arguments_tokens_or_credentials() -> None:
    history = History()
    record = add(history, source=("resource", f"db://me:{CANARY}@host/table/7?id={CANARY}#{CANARY}"))
    assert record.source == Source("resource", "db://host/table/7")
    assert add(history, source=("tool", "search")).source == Source("tool", "search")
    assert add(history, source=("prompt", "greet")).source == Source("prompt", "greet")
    assert CANARY not in json.dumps(history.records())


def test_who_answered_comes_from_the_outcome() -> None:
    assert answered_by(None) is None
    assert answered_by(Outcome(Action.ACCEPT)) == "person"
    assert answered_by(Outcome(Action.ACCEPT, Reason.HANDLER, by="auto_fill")) == "auto_fill"
    assert answered_by(Outcome(Action.DECLINE, Reason.POLICY, by="headless")) == "headless"
    assert answered_by(Outcome(Action.DECLINE, Reason.HANDLER)) == "handler"
    assert answered_by(Outcome(Action.CANCEL, Reason.TIMEOUT)) is None
    assert answered_by(Outcome(Action.CANCEL, Reason.WITHDRAWN)) is None


def test_duration_and_asked_at_count_from_when_the_server_asked() -> None:
    history = History()
    record = add(history, started=time.monotonic() - 5)
    age = dt.datetime.now(dt.timezone.utc) - record.asked_at
    assert dt.timedelta(seconds=4.5) < age < dt.timedelta(seconds=60)
    assert history.finish(record.id, Outcome(Action.CANCEL, Reason.TIMEOUT, note="no answer within 5 s"))
    done = history.get(record.id)
    assert done is not None and done.duration is not None and done.duration >= 5
    assert done.describe() == "cancelled: nobody answered in time (no answer within 5 s)"


def test_the_first_outcome_wins() -> None:
    history = History()
    record = add(history)
    assert not history.finish(record.id, None)
    assert history.finish(record.id, Outcome(Action.DECLINE))
    assert not history.finish(record.id, Outcome(Action.ACCEPT))
    assert not history.finish(12345, Outcome(Action.ACCEPT))
    done = history.get(record.id)
    assert done is not None and done.outcome == Outcome(Action.DECLINE)


def test_a_request_without_a_view_can_be_recorded_finished() -> None:
    history = History()
    outcome = Outcome(
        Action.DECLINE, Reason.INVALID_SCHEMA, note="property 'x': type 'object' is not allowed"
    )
    record = add(history, fields=[("x", "X", False)], outcome=outcome)
    assert record.outcome == outcome and record.duration is not None
    assert history.records(outcome="invalid-schema")[0]["id"] == record.id


def test_fields_can_come_from_the_raw_schema_even_a_refused_one() -> None:
    history = History()
    raw = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "default": CANARY},
            "nested": {"type": "object", "title": 7},  # refused by the form; its name is still worth keeping
            "odd": 5,
        },
        "required": ["name", 3],
    }
    record = add(history, schema=raw)
    assert record.fields == (
        AskedField("name", "Name", True),
        AskedField("nested", "nested", False),
        AskedField("odd", "odd", False),
    )
    assert CANARY not in json.dumps(history.records())
    for bad in ("not a schema", {"properties": ["a"]}, {"properties": {"a": {}}, "required": "a"}):
        assert add(history, schema=bad).fields in ((), (AskedField("a", "a", False),))  # type: ignore[arg-type]
    assert add(history, schema=raw, fields=[("given", "Given", False)]).fields == (
        AskedField("given", "Given", False),
    )


def test_server_text_is_bounded() -> None:
    history = History()
    record = add(history, message="m" * 100_000, outcome=Outcome(Action.CANCEL, note="n" * 100_000))
    assert len(record.message) == MAX_TEXT and record.message.endswith("…")
    assert record.outcome is not None and len(record.outcome.note) == MAX_TEXT


def test_bad_arguments_are_refused() -> None:
    history = History()
    with pytest.raises(ValueError, match="mode"):
        history.begin_request(server="s", mode="sms")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="outcome filter"):
        history.records(outcome="maybe")
    with pytest.raises(ValueError, match="max_records"):
        History(max_records=0)


# -- the store --------------------------------------------------------------------------------------------
def test_the_store_is_bounded_to_the_newest_records() -> None:
    assert History().max_records == MAX_RECORDS == 10_000
    history = History(max_records=100)
    records = [add(history, server=f"s{i % 3}") for i in range(250)]
    assert len(history) == 100
    assert [r["id"] for r in history.records()] == list(range(250, 150, -1))
    assert history.get(records[0].id) is None
    assert not history.finish(records[0].id, Outcome(Action.ACCEPT))  # dropped: nothing to finish
    assert history.count() == 100
    assert sum(history.count(server=s) for s in history.servers()) == 100
    assert history.count(server="s0") == len(history.records(server="s0"))


def test_filters_by_server_and_outcome() -> None:
    history = History()
    a1 = add(history, server="a")
    add(history, server="b", outcome=Outcome(Action.ACCEPT))
    add(history, server="a", outcome=Outcome(Action.CANCEL, Reason.TIMEOUT))
    add(history, server="a", outcome=Outcome(Action.DECLINE, Reason.HANDLER, by="no"))

    def ids(**kw: Any) -> list[int]:
        return [r["id"] for r in history.records(**kw)]

    assert ids() == [4, 3, 2, 1]
    assert ids(server="a") == [4, 3, 1]
    assert ids(outcome="pending") == [1]
    assert ids(outcome=Action.ACCEPT) == [2]
    assert ids(outcome="cancel") == ids(outcome=Reason.TIMEOUT) == [3]
    assert ids(server="a", outcome="handler") == [4]
    assert ids(server="zzz") == []
    assert history.servers() == ["a", "b"]
    history.finish(a1.id, Outcome(Action.ACCEPT))
    assert ids(outcome="pending") == [] and ids(outcome="accept") == [2, 1]
    assert history.count(outcome="accept") == 2


def test_pages_are_newest_first() -> None:
    history = History()
    for _ in range(45):
        add(history)
    total, page = history.page(offset=20, limit=20)
    assert total == 45 and [r.id for r in page] == list(range(25, 5, -1))
    assert [r.id for r in history.page(offset=40, limit=20)[1]] == [5, 4, 3, 2, 1]
    assert history.page(offset=60)[1] == []


def test_server_views_see_one_server() -> None:
    history = History()
    add(history, server="a")
    add(history, server="b")
    view = history.for_server("a")
    events: list[tuple[str, int | None]] = []
    view.subscribe(lambda change, record: events.append((change, record and record.id)))
    add(history, server="b")
    third = add(history, server="a")
    history.clear()
    assert events == [("added", third.id), ("cleared", None)]
    assert len(view) == 0 and view.records() == [] and "server='a'" in repr(view)


def test_listeners_hear_every_change_and_can_leave(caplog: pytest.LogCaptureFixture) -> None:
    history = History()
    events: list[tuple[str, int | None, bool]] = []

    def listen(change: str, record: HistoryRecord | None) -> None:
        events.append((change, record.id if record else None, bool(record and record.pending)))

    def broken(change: str, record: HistoryRecord | None) -> None:
        raise RuntimeError("boom")

    history.subscribe(broken)
    stop = history.subscribe(listen)
    record = add(history)
    history.finish(record.id, Outcome(Action.ACCEPT))
    history.clear()
    stop()
    add(history)
    assert events == [("added", 1, True), ("updated", 1, False), ("cleared", None, False)]
    assert "a history listener failed" in caplog.text  # logged, and the others still heard


def test_many_threads_record_at_once() -> None:
    history = History(max_records=3_000)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(250):
                record = add(history, server=f"s{n}")
                if i % 2:
                    history.finish(record.id, Outcome(Action.ACCEPT))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    records = history.records()
    assert len(records) == len({r["id"] for r in records}) == 2_000
    assert history.count(outcome="accept") == history.count(outcome="pending") == 1_000
    assert all(history.count(server=f"s{n}") == 250 for n in range(8))


def test_there_is_one_store_per_process() -> None:
    assert default_history() is default_history()
    assert isinstance(default_history(), History)


def test_the_store_is_pure() -> None:
    probe = (
        "import sys, mcp_widgets.core.history\n"
        "print(sorted({'ipywidgets', 'ipykernel', 'IPython', 'mcp', 'mcp_types', 'comm', 'traitlets'}"
        " & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"
