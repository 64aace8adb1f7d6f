"""preview(): a form without a server, its schema problems, and the JSON each button would send."""

from __future__ import annotations

import json

import ipywidgets as w

from mcp_widgets.core.schema import check_schema
from mcp_widgets.widgets import ElicitationForm, FormState, Preview, preview

from .conftest import HOSTILE, live_models, own_models, schema

GOOD = schema(
    {"name": {"type": "string", "minLength": 2}, "n": {"type": "integer", "default": 3}},
    required=["name"],
)
BAD = schema({"name": {"type": "string"}, "deep": {"type": "object"}, "loose": {}})


def texts(view: Preview) -> list[str]:
    return [c.value for c in view.children if isinstance(c, w.Label)]


def test_preview_shows_the_form_and_the_json_of_each_button_live() -> None:
    view = preview(GOOD, message="Hi")
    assert isinstance(view, w.VBox)
    assert isinstance(view.form, ElicitationForm)
    assert view.children[0] is view.form
    assert view.form.server == "preview"
    assert view.problems == ()
    assert "No problems found in this schema." in texts(view)
    assert view.sent_json("accept") is None  # "name" is required
    assert view.sent_json("decline") == '{"action": "decline"}'
    assert view.sent_json("cancel") == '{"action": "cancel"}'
    assert any(t.startswith("Accept → nothing (Accept is disabled: fix: name)") for t in texts(view))
    view.form.fill(name="Ada")
    assert json.loads(view.sent_json("accept")) == {"action": "accept", "content": {"name": "Ada", "n": 3}}
    assert f"Accept → {view.sent_json('accept')}" in texts(view)
    assert 'Decline → {"action": "decline"}' in texts(view)


def test_preview_of_a_schema_with_errors_renders_what_it_can_and_never_accepts() -> None:
    view = preview(BAD)
    assert view.problems == tuple(check_schema(BAD))
    assert any(p.severity == "error" for p in view.problems)
    assert view.form.field_names[0] == "name" and "deep" not in view.form.field_names
    for problem in view.problems:
        assert str(problem) in texts(view)
    # Each error about a property also shows where that property would be, as an error line (a property
    # the form cannot show is not dropped silently); the list below marks errors as errors too.
    rows = view.form.card["rows"]
    names = [r.get("name") or r["note"] for r in rows]
    deep = [i for i, r in enumerate(rows) if r["note"].startswith("⚠ Error: property 'deep'")]
    assert len(deep) == 1 and rows[deep[0]]["widget"] == "problem"
    assert deep[0] == names.index("name") + 1  # where that property would be
    listed = [c for c in view.children if isinstance(c, w.Label) and c.value.startswith("error [")]
    assert listed and all("mcp-widgets-error" in c._dom_classes for c in listed)
    view.form.fill(name="x")
    assert not view.form.accept_ok
    assert view.sent_json("accept") is None
    assert view.form.accept() is False
    assert "Accept → nothing (Accept is disabled: the schema has errors)" in texts(view)


def test_after_an_answer_the_preview_keeps_no_values(baseline: int) -> None:
    canary = "canary-preview-51"
    view = preview(GOOD)
    view.form.fill(name=canary)
    assert any(canary in t for t in texts(view))
    assert view.form.accept()
    assert view.form.state is FormState.ACCEPTED
    assert view.sent_json("accept") is None
    assert "Accept → sent (values not kept here)" in texts(view)
    assert "Cancel → not sent" in texts(view)
    for model in live_models().values():
        assert canary not in json.dumps(model.get_state(), default=str)
    view.close()
    assert len(own_models()) == baseline


def test_closing_a_pending_preview_closes_everything(baseline: int) -> None:
    view = preview(BAD, message="m")
    view.close()
    assert view.form.state is FormState.CANCELLED
    assert len(own_models()) == baseline


def test_preview_text_is_plain() -> None:
    view = preview(
        schema({HOSTILE: {"type": "object"}, "x": {"type": "string", "title": HOSTILE}}), message=HOSTILE
    )
    own = {
        id(view),
        *(id(m) for m in view._kit.models),
        id(view.form),
    }
    for model in live_models().values():
        if id(model) in own:
            assert not isinstance(model, (w.HTML, w.HTMLMath, w.Output))
            assert not model.get_state().get("description_allow_html")
    assert repr(view).startswith("<Preview problems=")
