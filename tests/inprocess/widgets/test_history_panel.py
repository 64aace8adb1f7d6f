"""HistoryPanel: what it shows (never a value), live updates, paging, filters, hostile text, many rows."""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

import pytest

from mcp_widgets.core.history import RECORD_KEYS, History, HistoryRecord
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, HistoryPanel, UrlCard
from mcp_widgets.widgets._history import COLUMNS, row_cells
from tests.inprocess.core.test_history import record_card

from .conftest import HOSTILE, live_models, own_models, schema

CANARY = "canary-hist-5e1d"
# Strings that only what the person entered can contain (choice values are server-sent, but never recorded).
CANARIES = (CANARY, "1931-07-14", "918273645", "5918273", "zz-canary")
EVERY_KIND = schema(
    {
        "text": {"type": "string", "title": "Text"},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meet": {"type": "string", "format": "date-time"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "agree": {"type": "boolean"},
        "pick": {"type": "string", "enum": ["one", "zz-canary-choice"]},
        "titled": {
            "type": "string",
            "oneOf": [{"const": "p", "title": "P"}, {"const": "zz-canary-c", "title": "Q"}],
        },
        "many": {"type": "array", "items": {"enum": ["m", "zz-canary-multi"]}},
    },
    required=["text"],
)
VALUES: dict[str, Any] = {
    "text": CANARY,
    "email": f"{CANARY}@example.com",
    "site": f"https://{CANARY}.example/x",
    "born": "1931-07-14",
    "meet": "1931-07-14T05:06:07+00:00",
    "count": 918273645,
    "ratio": 0.5918273,
    "agree": True,
    "pick": "zz-canary-choice",
    "titled": "zz-canary-c",
    "many": ["zz-canary-multi"],
}


def rendered(panel: HistoryPanel) -> str:
    """Everything the panel would send or save: its one model's state."""
    return json.dumps(panel.get_state(), default=str)


def texts(panel: HistoryPanel) -> list[str]:
    """Every string the page is given to show: the rows, the note, the empty line, the status."""
    strings = [panel.names_note, panel.empty, panel.status]
    for line in panel.lines:
        strings += [*line["cells"], line["when"], *line["names"]]
    return strings


def add(history: History, server: str = "shop", **kw: Any) -> HistoryRecord:
    kw.setdefault("mode", "form")
    kw.setdefault("message", "Sign up?")
    return history.begin_request(server=server, **kw)


# -- never a value ----------------------------------------------------------------------------------------
def test_a_canary_typed_into_every_field_kind_is_kept_nowhere(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    history = History()
    panel = HistoryPanel(history)
    form = ElicitationForm("Tell us everything", EVERY_KIND, server="shop")
    record = record_card(history, form, source=("tool", "survey"))
    form.fill(**VALUES)
    # The guard: while pending, the form holds what was typed (in Python only: never in a model's state).
    assert any(CANARY in str(v) for v in form.values().values())
    assert not any(CANARY in json.dumps(m.get_state(), default=str) for m in live_models().values())
    assert form.accept()
    assert form.result is not None and form.result.content is not None
    sent = json.dumps(form.result.content)
    assert all(c in sent for c in CANARIES)  # the server gets every value...
    done = history.get(record.id)
    assert done is not None and done.outcome == Outcome(Action.ACCEPT)
    assert panel.rows[0][6:8] == ("accepted", "the person")  # "person" once
    kept = "\n".join(
        [
            json.dumps(history.records()),
            json.dumps(panel.records()),
            rendered(panel),
            repr(panel),
            repr(history),
            repr(done),
            repr(history.entries()),
            str(panel.rows),
            caplog.text,
        ]
    )
    for canary in CANARIES:  # ...and nothing else does
        assert canary not in kept, canary
    assert [f["name"] for f in panel.records()[0]["fields"]] == list(VALUES)
    panel.close()


def test_url_records_and_the_panel_keep_the_host_only() -> None:
    history = History()
    panel = HistoryPanel(history)
    url = f"https://login.example.com/cb/{CANARY}?token={CANARY}#frag-{CANARY}"
    card = UrlCard("Log in", url, server="auth")
    record_card(history, card, source=("tool", "login"))
    assert panel.rows[0][3] == "URL: login.example.com"
    assert card.accept()
    assert panel.rows[0][6:8] == ("accepted", "the person")  # "person" once
    assert CANARY not in rendered(panel) + json.dumps(panel.records()) + repr(panel)
    card.close()
    panel.close()


# -- hostile server text ----------------------------------------------------------------------------------
def test_hostile_server_strings_are_shown_as_text() -> None:
    history = History()
    hostile = f"{HOSTILE}\"'&amp;"
    add(
        history,
        server=hostile,
        declared_name=hostile,
        message=hostile,
        source=("tool", hostile),
        fields=[(hostile, hostile, True)],
        outcome=Outcome(Action.DECLINE, Reason.HANDLER, by=hostile, note=hostile),
    )
    add(history, server=hostile, mode="url", url_host=hostile, message="\u202egnp.exe")
    panel = HistoryPanel(history)
    shown = texts(panel)
    # The page is given the literal strings (control characters made visible) and sets them as text.
    assert any(hostile in text for text in shown)
    assert panel.lines[1]["names"] == [] and panel.lines[1]["cells"][5] == hostile + "\u00a0*"
    assert panel.rows[0][3] == "URL: " + hostile  # the host, as literal text
    # One model, and its module never makes markup of what it is given.
    for markup in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser"):
        assert markup not in panel._esm
    assert "textContent" in panel._esm
    panel.close()


def test_invisible_characters_in_hosts_are_made_visible() -> None:
    history = History()
    add(history, mode="url", url_host="pay\u200bpal.com")
    panel = HistoryPanel(history)
    assert panel.rows[0][3] == "URL: pay⟨U+200B⟩pal.com"
    panel.close()


# -- live -------------------------------------------------------------------------------------------------
def test_the_panel_updates_live_while_forms_are_pending() -> None:
    history = History()
    panel = HistoryPanel(history)
    assert panel.rows == [] and panel.lines == [] and panel.empty == "No elicitations yet."
    form = ElicitationForm("Sign up?", schema({"name": {"type": "string"}}, ["name"]), server="shop")
    record_card(history, form, source=("tool", "signup"))
    assert len(panel.rows) == 1
    _when, server, call, mode, message, fields, outcome, who, took = panel.rows[0]
    assert (server, call, mode, message, fields) == ("shop", "tool signup", "form", "Sign up?", "name\u00a0*")
    assert (outcome, who, took) == ("pending…", "—", "waiting")
    other = ElicitationForm("Sure?", schema({}), server="bank")
    record_card(history, other)
    assert [r[1] for r in panel.rows] == ["bank", "shop"]
    with form.acting_as(Reason.HANDLER, by="auto_fill"):
        form.fill(name="x")
        assert form.accept()
    assert panel.rows[1][6:8] == ("accepted", "handler auto_fill")
    assert panel.rows[1][8].endswith(" s")
    other.finish(Action.CANCEL, reason=Reason.TIMEOUT, note="no answer within 60 s")
    assert panel.rows[0][6:8] == ("cancelled: nobody answered in time (no answer within 60 s)", "—")
    panel.close()


def test_updates_from_another_thread_reach_the_panel() -> None:
    history = History()
    panel = HistoryPanel(history)
    record = add(history)
    thread = threading.Thread(target=history.finish, args=(record.id, Outcome(Action.DECLINE)))
    thread.start()
    thread.join()
    assert panel.rows[0][6:8] == ("declined", "the person")
    adders = [threading.Thread(target=lambda: [add(history) for _ in range(50)]) for _ in range(4)]
    for t in adders:
        t.start()
    for t in adders:
        t.join()
    assert panel.total == 201 and len(panel.rows) == 20
    assert [int(r["id"]) for r in panel.records()[:20]] == list(range(201, 181, -1))
    panel.close()


def test_changes_off_the_page_do_not_re_render() -> None:
    history = History()
    old = add(history)
    for _ in range(30):
        add(history)
    panel = HistoryPanel(history, page_size=10)
    refreshes: list[int] = []
    refresh = panel.refresh
    panel.refresh = lambda: (refreshes.append(1), refresh())  # type: ignore[method-assign]
    history.finish(old.id, Outcome(Action.ACCEPT))  # on page 4: nothing on screen changes
    assert refreshes == []
    add(history, message="newest")
    assert refreshes == [1] and panel.rows[0][4] == "newest"
    panel.set_filter(outcome="pending")  # now an update moves records between pages
    refreshes.clear()
    history.finish(2, Outcome(Action.ACCEPT))
    assert refreshes == [1] and panel.total == 30
    panel.close()


# -- paging and filters -----------------------------------------------------------------------------------
def test_paging_newest_page_first() -> None:
    history = History()
    for i in range(45):
        add(history, message=f"q{i + 1}")
    panel = HistoryPanel(history, page_size=20)
    assert (panel.total, panel.pages, panel.page) == (45, 3, 0)
    assert [r[4] for r in panel.rows] == [f"q{i}" for i in range(45, 25, -1)]
    assert panel.status == "1–20 of 45 · page 1 of 3"
    assert not panel.newer() and panel.page == 0
    assert panel.older() and panel.older()
    assert [r[4] for r in panel.rows] == ["q5", "q4", "q3", "q2", "q1"]
    assert [line["cells"][4] for line in panel.lines] == ["q5", "q4", "q3", "q2", "q1"]  # the page's state
    assert panel.status == "41–45 of 45 · page 3 of 3"
    assert not panel.older() and panel.page == 2
    assert panel.newer() and panel.page == 1
    assert repr(panel) == "<HistoryPanel records=45 page=2/3>"
    history.clear()
    assert (panel.page, panel.rows, panel.total) == (0, [], 0)
    panel.close()


def test_filters_by_server_and_outcome_apply_to_the_table_and_the_records() -> None:
    history = History()
    for i in range(30):
        outcome = [None, Outcome(Action.ACCEPT), Outcome(Action.CANCEL, Reason.TIMEOUT)][i % 3]
        add(history, server=["a", "b"][i % 2], outcome=outcome)
    panel = HistoryPanel(history, page_size=4)
    assert not panel.pinned and panel.servers == [["a", "a"], ["b", "b"]]
    panel.older()
    panel.set_filter(server="a")  # a filter starts again at the newest page
    assert panel.page == 0 and panel.total == 15
    assert {r[1] for r in panel.rows} == {"a"} and len(panel.rows) == 4
    assert panel.records() == history.records(server="a")
    panel.set_filter(outcome="timeout")
    assert panel.records() == history.records(server="a", outcome="timeout")
    assert panel.total == 5 and all(r[6].startswith("cancelled: nobody answered") for r in panel.rows)
    assert repr(panel) == "<HistoryPanel records=5 server='a' outcome='timeout' page=1/2>"
    panel.set_filter(server=None, outcome=Action.ACCEPT)
    assert panel.total == 10 and panel.records() == history.records(outcome="accept")
    panel.set_filter(outcome="pending")
    assert panel.total == 10 and {r[6] for r in panel.rows} == {"pending…"}
    panel.set_filter(outcome=None)
    assert panel.records() == history.records() and all(tuple(r) == RECORD_KEYS for r in panel.records())
    with pytest.raises(ValueError, match="filter"):
        panel.set_filter(outcome="maybe")
    panel.close()


def test_the_page_filters_and_turns_pages_by_messages() -> None:
    """What the page sends (a dropdown's choice, Newer / Older) drives the panel; a stale or made-up value
    changes nothing and leaves no error."""
    history = History()
    for i in range(12):
        add(history, server=["a", "b"][i % 2], outcome=Outcome(Action.DECLINE) if i % 3 else None)
    panel = HistoryPanel(history, page_size=4)
    panel._handle_custom_msg({"turn": 1}, [])
    assert panel.page == 1 and panel.status == "5–8 of 12 · page 2 of 3"
    panel._handle_custom_msg({"server": "b"}, [])
    assert (panel.server_filter, panel.page, panel.total) == ("b", 0, 6)
    assert {line["cells"][1] for line in panel.lines} == {"b"}
    panel._handle_custom_msg({"outcome": "decline"}, [])
    assert (panel.outcome_filter, panel.total) == ("decline", 4)
    for stale in (
        {"server": "zz"},
        {"outcome": "maybe"},
        {"outcome": "__all__"},
        {"turn": 5},
        {"turn": -1},
        ["x"],
        {"server": 3},
    ):
        panel._handle_custom_msg(stale, [])
    assert (panel.server_filter, panel.outcome_filter, panel.page, panel.total) == ("b", "decline", 0, 4)
    panel._handle_custom_msg({"server": None}, [])
    panel._handle_custom_msg({"outcome": None}, [])
    assert panel.total == 12 and panel.pages == 3
    panel.close()


def test_the_server_dropdown_learns_new_servers_and_keeps_the_choice() -> None:
    history = History()
    add(history, server="a")
    panel = HistoryPanel(history)
    panel.set_filter(server="a")
    add(history, server="c")
    assert [name for _, name in panel.servers] == ["a", "c"]
    assert panel.server_filter == "a" and panel.total == 1
    panel.set_filter(server="not-yet")  # a server with no records yet can be chosen
    assert panel.total == 0 and panel.empty == "No elicitations match the filters."
    add(history, server="not-yet")
    assert panel.total == 1
    panel.close()


def test_a_panel_for_one_server() -> None:
    history = History()
    add(history, server="a")
    add(history, server="b")
    for panel in (HistoryPanel(history, server="a"), HistoryPanel(history.for_server("a"))):
        assert (
            panel.pinned
            and panel.servers == []
            and panel.total == 1
            and panel.records() == history.records(server="a")
        )
        add(history, server="b")
        assert panel.total == 1
        with pytest.raises(ValueError, match="one server"):
            panel.set_filter(server="b")
        panel.close()


def test_the_default_panel_shows_the_process_store() -> None:
    from mcp_widgets.core.history import default_history

    panel = HistoryPanel()
    assert panel.history is default_history()
    panel.close()


# -- thousands --------------------------------------------------------------------------------------------
def test_ten_thousand_records_render_one_page(capsys: pytest.CaptureFixture[str]) -> None:
    history = History()
    for i in range(10_000):
        outcome = None if i % 7 == 0 else Outcome(Action.ACCEPT)
        add(history, server=f"s{i % 5}", message=f"question {i}", fields=[("a", "A", True)], outcome=outcome)
    start = time.perf_counter()
    panel = HistoryPanel(history)
    built = time.perf_counter() - start
    start = time.perf_counter()
    panel.set_filter(server="s3", outcome="pending")
    filtered = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(1_000):
        add(history, server="s3")
    live = time.perf_counter() - start
    with capsys.disabled():
        print(
            f"\nhistory panel, 10,000 records: built in {built * 1000:.1f} ms, filtered in "
            f"{filtered * 1000:.1f} ms, 1,000 live appends in {live * 1000:.0f} ms"
        )
    assert len(history) == 10_000  # bounded: the oldest 1,000 were dropped
    assert len(panel.rows) == 20
    assert len(panel.lines) == 20  # one page of state, whatever the store holds
    assert len(json.dumps(panel.lines)) < 20_000
    panel.close()


def test_the_panel_has_a_fixed_handful_of_models_and_closes_them(baseline: int) -> None:
    history = History()
    empty = HistoryPanel(history)
    count = len(own_models()) - baseline
    empty.close()
    assert len(own_models()) == baseline and history._listeners == []
    for _ in range(500):
        add(history)
    full = HistoryPanel(history)
    assert len(own_models()) - baseline == count == 1  # one model (its Layout is the shared one)
    full.close()
    assert len(own_models()) == baseline and history._listeners == []
    add(history)  # a closed panel no longer listens (and nothing fails)


def test_columns_are_what_the_issue_asks_for() -> None:
    assert COLUMNS == (
        "When",
        "Server",
        "Call",
        "Mode",
        "Message",
        "Fields asked (* required)",
        "Outcome",
        "Answered by",
        "Took",
    )


def test_a_sign_in_row_names_the_authorization_server_and_the_scopes() -> None:
    store = History()
    record = store.begin(
        server="notes", mode="signin", url_host="auth.example", scopes=("mcp:read", "offline_access")
    )
    cells = dict(zip(COLUMNS, row_cells(record), strict=True))
    assert cells["Mode"] == "sign-in on auth.example"
    assert cells["Fields asked (* required)"] == "2 scopes: mcp:read, offline_access"


def test_one_line_per_question_fields_counted_and_the_declared_name_said_once() -> None:
    """Issue 32: no row repeats what its server calls itself, a form's fields are one line with a count
    that opens to the full list, and every cell's whole text is there on hover."""
    history = History()
    ten = [(f"f{i}", f"Field {i}", i < 2) for i in range(10)]
    for _ in range(3):
        add(history, server="demo", declared_name="mcp-widgets-demo", fields=ten)
    add(history, server="shop", fields=[("city", "City", True)])
    add(history, server="bare", declared_name="bare")
    panel = HistoryPanel(history)
    cells = [dict(zip(COLUMNS, row, strict=True)) for row in panel.rows]
    assert [c["Server"] for c in cells] == ["bare", "shop", "demo", "demo", "demo"]
    assert cells[2]["Fields asked (* required)"] == (
        "10 fields: Field 0\u00a0*, Field 1\u00a0*, " + ", ".join(f"Field {i}" for i in range(2, 10))
    )
    assert [c["Fields asked (* required)"] for c in cells[:2]] == ["—", "City\u00a0*"]
    assert all("\n" not in cell for row in panel.rows for cell in row)  # one line each
    assert panel.names_note == "demo calls itself “mcp-widgets-demo”"  # once, under the table
    assert [bool(line["names"]) for line in panel.lines] == [False, False, True, True, True]
    assert sum(len(line["names"]) for line in panel.lines) == 30  # the ten-field rows open to the full list
    assert panel.lines[2]["cells"] == list(panel.rows[2])  # every cell's whole text (the page's hover)
    panel.close()


def test_a_panel_the_page_stopped_showing_is_not_drawn_until_a_view_comes_back() -> None:
    """`mw.history()` in a cell run again: the old panel's view goes (history.js says `{"view": -1}`), and
    changes then only mark it stale, with no state sent to the page; a view coming back, or Python reading its
    rows, draws it with everything that came meanwhile."""
    history = History()
    add(history, message="first")
    panel = HistoryPanel(history, page_size=10)
    sent: list[dict[str, Any]] = []
    send_state = panel.send_state
    panel.send_state = lambda key=None: (sent.append({"key": key}), send_state(key))  # type: ignore[method-assign]
    synced: list[str] = []
    panel.observe(lambda change: synced.append(change["name"]), names=["lines", "status"])
    assert panel.drawing  # no page reported yet: drawn on every change, as in a headless run
    panel._handle_custom_msg({"view": 1}, [])
    add(history, message="second")
    assert synced and panel.lines[0]["cells"][4] == "second"
    panel._handle_custom_msg({"view": -1}, [])  # the cell ran again: its view is gone
    assert not panel.drawing
    synced.clear()
    sent.clear()
    for i in range(20):
        add(history, server="new", message=f"off screen {i}")
    assert synced == [] and sent == [] and panel.lines[0]["cells"][4] == "second"
    panel._handle_custom_msg({"view": 1}, [])  # shown again (the same output displayed anew)
    assert panel.lines[0]["cells"][4] == "off screen 19" and panel.status.endswith("of 22 · page 1 of 3")
    assert ["new", "new"] in panel.servers  # the dropdown learnt the server that came meanwhile
    panel._handle_custom_msg({"view": -1}, [])
    add(history, message="third")
    assert panel.rows[0][4] == "third" and panel.total == 23  # Python reading it draws it
    for odd in ({"view": True}, {"view": 2}, {"view": "1"}):
        panel._handle_custom_msg(odd, [])
    assert not panel.drawing
    panel.close()
