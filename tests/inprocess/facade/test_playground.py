"""The schema playground, driven as a browser drives it: the text area changes through `set_state`."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from typing import Any

import ipywidgets as w
import pytest

from mcp_widgets import FormStateError
from mcp_widgets.playground import EXAMPLE_SCHEMA, Playground, playground
from mcp_widgets.widgets import ElicitationForm, FormState, Preview

HOSTILE = "<img src=x onerror=alert(1)>"


def live_models() -> set[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return set(w.Widget.widgets)


def type_text(pg: Playground, text: str) -> None:
    """What the browser sends when the person edits the text area."""
    pg.editor.set_state({"value": text})


def labels(widget: w.Widget) -> list[str]:
    """Every Label's text in the widget tree, and a form's header and message (its card)."""
    found: list[str] = []
    if isinstance(widget, w.Label):
        found.append(widget.value)
    card = getattr(widget, "card", None)
    if isinstance(card, dict) and card:
        found += [card["header"], card["message"]]
    for child in getattr(widget, "children", ()):
        found.extend(labels(child))
    return found


def tree(widget: w.Widget) -> list[w.Widget]:
    return [widget, *(d for child in getattr(widget, "children", ()) for d in tree(child))]


def rules(pg: Playground) -> list[tuple[str, str]]:
    assert pg.preview is not None
    return [(p.severity, p.rule) for p in pg.preview.problems]


def dump(schema: Any) -> str:
    return json.dumps(schema, indent=2)


def test_starts_with_the_example_and_its_one_warning() -> None:
    pg = playground()
    assert json.loads(pg.editor.value) == EXAMPLE_SCHEMA
    assert isinstance(pg.preview, Preview)
    assert pg.children[-1].children == (pg.preview,)
    assert rules(pg) == [("warning", "property-type-missing")]
    assert pg.error is None
    assert any("property 'contact'" in text for text in labels(pg))
    assert pg.preview.form.field_names[:2] == ("title", "severity")


def test_valid_json_replaces_the_preview_and_closes_the_old_one() -> None:
    pg = playground()
    old = pg.preview
    assert old is not None
    schema = {"type": "object", "properties": {"age": {"type": "integer", "default": 3}}}
    type_text(pg, dump(schema))
    assert pg.preview is not old and pg.preview is not None
    assert old.form.comm is None  # closed, not leaked
    assert pg.preview.problems == ()
    assert pg.preview.form.field_names == ("age",)
    assert pg.preview.sent_json("accept") == '{"action": "accept", "content": {"age": 3}}'
    assert 'Accept → {"action": "accept", "content": {"age": 3}}' in labels(pg)


def test_invalid_json_says_where_and_keeps_the_last_preview() -> None:
    pg = playground()
    before = pg.preview
    type_text(pg, '{"type": "object",\n  "properties": {,}}')
    assert pg.error is not None
    assert "line 2, column" in pg.error
    assert pg.status.value == pg.error  # shown as plain text
    assert pg.preview is before
    type_text(pg, dump(EXAMPLE_SCHEMA))
    assert pg.error is None
    assert pg.status.value == ""


def test_a_schema_with_errors_shows_them_and_disables_accept() -> None:
    pg = playground()
    bad = {"type": "object", "properties": {"address": {"type": "object"}, "free": {}}}
    type_text(pg, dump(bad))
    assert ("error", "property-type") in rules(pg)
    assert ("warning", "property-type-missing") in rules(pg)
    assert pg.preview is not None
    assert pg.preview.sent_json("accept") is None
    assert pg.preview.sent_json("cancel") == '{"action": "cancel"}'
    assert any(
        t.startswith("Accept → nothing (Accept is disabled: the schema has errors") for t in labels(pg)
    )


def test_json_that_is_not_an_object_is_a_schema_error_not_a_crash() -> None:
    pg = playground()
    for text, kind in (("[1, 2]", "a list"), ("42", "a number"), ("null", "null")):
        type_text(pg, text)
        assert pg.error is None
        assert rules(pg) == [("error", "schema-not-object")]
        assert any(kind in t for t in labels(pg))


def test_whitespace_edits_keep_the_form_and_what_was_typed() -> None:
    pg = playground()
    form = pg.preview.form if pg.preview else None
    assert isinstance(form, ElicitationForm)
    form.fill(title="Crash on save")
    type_text(pg, json.dumps(EXAMPLE_SCHEMA))  # same schema, other layout
    assert pg.preview is not None and pg.preview.form is form
    assert json.loads(pg.preview.sent_json("accept") or "{}")["content"]["title"] == "Crash on save"


def test_the_message_is_editable_and_starts_from_the_argument() -> None:
    pg = playground({"type": "object", "properties": {}}, message="Delete 3 files?")
    assert pg.message.value == "Delete 3 files?"
    assert "Delete 3 files?" in labels(pg)
    pg.message.set_state({"value": "Delete 4 files?"})
    assert "Delete 4 files?" in labels(pg)
    assert "Delete 3 files?" not in labels(pg)


def test_accepts_json_text_as_the_starting_schema() -> None:
    pg = playground('{"type": "object", "properties": {"ok": {"type": "boolean"}}}')
    assert pg.preview is not None and pg.preview.form.field_names == ("ok",)
    pg_bad = playground("{not json")
    assert pg_bad.preview is None
    assert pg_bad.error is not None and "line 1" in pg_bad.error


def test_schema_text_is_never_markup() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": "string", "title": HOSTILE, "description": HOSTILE}},
    }
    pg = playground(schema, message=HOSTILE)
    assert HOSTILE in labels(pg)
    type_text(pg, '{"' + HOSTILE)  # the JSON error quotes nothing as HTML either
    for widget in tree(pg):
        assert not isinstance(widget, (w.HTML, w.HTMLMath))
        assert not getattr(widget, "description_allow_html", False)


def test_close_leaves_no_models_behind() -> None:
    before = live_models()
    pg = playground()
    type_text(pg, dump({"type": "object", "properties": {"a": {"type": "string"}}}))
    type_text(pg, "{")
    pg.message.set_state({"value": "changed"})
    pg.close()
    assert live_models() - before == set()


def test_a_json_error_quotes_the_line_and_marks_where() -> None:
    pg = playground()
    type_text(pg, '{"type": "object",\n  "properties": {"a": {"type": "string"} "b": {}}}')
    assert pg.error is not None
    assert "line 2, column 42" in pg.error  # where the next key starts: a comma is missing before it
    assert ': "properties": {"a": {"type": "string"} ⟪here⟫"b": {}}} — ' in pg.error


def test_reset_gives_a_fresh_form_after_an_answer() -> None:
    pg = playground()
    assert pg.preview is not None
    first = pg.preview.form
    first.fill(title="Crash on save")
    assert first.accept()
    with pytest.raises(FormStateError):
        first.fill(title="Again")
    fresh = pg.preview.reset()
    assert fresh is pg.preview.form and fresh is not first
    assert fresh.state is FormState.PENDING
    assert pg.preview.children[0] is fresh
    assert first.comm is None  # the answered form's models are closed
    fresh.fill(title="Crash when saving")
    assert json.loads(pg.preview.sent_json("accept") or "{}")["content"]["title"] == "Crash when saving"
    # The Reset button does the same, as a click.
    button = pg.preview._reset
    button._handle_custom_msg({"event": "click"}, [])
    assert pg.preview.form is not fresh and pg.preview.form.errors == {"title": "required"}


def test_mw_playground_is_callable_after_the_module_was_imported() -> None:
    # The schema-playground notebook imports the module first; the package attribute then names the module.
    code = (
        "import mcp_widgets as mw\n"
        "from mcp_widgets.playground import Playground\n"
        "assert isinstance(mw.playground(), Playground)\n"
        "assert isinstance(mw.playground({'type': 'object', 'properties': {}}), Playground)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
