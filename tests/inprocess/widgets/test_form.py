"""ElicitationForm: what it shows, how it resolves, what it leaves behind."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import threading
from typing import Any

import ipywidgets as w
import mcp_types
import pytest

from mcp_widgets.core.exceptions import FieldNotFound, FormStateError, SchemaError
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, FormState
from mcp_widgets.widgets._explorer import ExplorerKeys
from mcp_widgets.widgets._fields import shared_models
from mcp_widgets.widgets._keys import KeyCatcher, shared_catcher

from .conftest import ALL_KINDS, HOSTILE, live_models, own_models, schema

SIGNUP = schema(
    {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
        "news": {"type": "boolean", "title": "Newsletter", "default": True},
        "plan": {"type": "string", "enum": ["free", "pro"], "default": "free"},
        "note": {"type": "string"},
    },
    required=["name", "age"],
)


def signup(**kw: Any) -> ElicitationForm:
    return ElicitationForm("Sign up?", SIGNUP, server="shop", **kw)


def form_models(form: ElicitationForm) -> list[w.Widget]:
    """Every open model that belongs to the form (itself and what it created)."""
    own = {id(form), *(id(m) for m in form._kit.models)}
    return [m for m in live_models().values() if id(m) in own]


def labels(form: ElicitationForm) -> list[str]:
    return [c.value for c in form.children if isinstance(c, w.Label)]


# -- what it shows -------------------------------------------------------------------------------------------
def test_header_names_the_server_and_the_message_is_a_label() -> None:
    form = signup()
    assert labels(form)[:2] == ["Request from shop", "Sign up?"]
    assert repr(form) == "<ElicitationForm server='shop' fields=5 pending>"
    assert form.server == "shop"
    assert form.message == "Sign up?"
    assert form.field_names == ("name", "age", "news", "plan", "note")
    assert form.spec.field("age").kind == "integer"
    assert form.state is FormState.PENDING
    assert form.result is None and form.outcome is None


def test_a_server_calling_itself_something_else_is_shown_as_such() -> None:
    assert (
        labels(signup(declared_name="Bank of Trust"))[0] == "Request from shop (calls itself “Bank of Trust”)"
    )
    assert labels(signup(declared_name="shop"))[0] == "Request from shop"


def test_the_buttons_are_accept_decline_cancel() -> None:
    form = signup()
    assert [b.description for b in form._buttons().values()] == ["Accept", "Decline", "Cancel"]


def test_empty_properties_is_a_pure_confirmation() -> None:
    form = ElicitationForm("Delete the file?", {"type": "object", "properties": {}}, server="fs")
    assert form.field_names == ()
    hint = "Keys: Tab to Accept and press Enter · Esc cancels"
    assert labels(form) == ["Request from fs", "Delete the file?", hint]
    assert len(form.children) == 5  # header, message, buttons, keyboard hint, keyboard helper
    assert form._accept.disabled is False
    assert form.accept() is True
    assert form.result.action == "accept"
    assert not form.result.content


def test_an_invalid_schema_raises_and_leaves_no_models(baseline: int) -> None:
    bad = schema({"ok": {"type": "string"}, "nested": {"type": "object"}})
    with pytest.raises(SchemaError) as info:
        ElicitationForm("x", bad, server="s")
    assert info.value.code == -32602
    assert len(own_models()) == baseline


def test_view_count_is_tracked_from_the_start_and_the_form_is_displayable() -> None:
    form = signup()
    assert form.view_count == 0
    bundle = form._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == form.model_id
    outer = w.VBox(children=(form,))  # placeable inside another box
    assert outer.children == (form,)
    outer.close()


def test_no_hard_coded_colours_so_both_themes_work() -> None:
    form = ElicitationForm("m", ALL_KINDS, server="s")
    for model in form_models(form):
        for key, value in model.get_state().items():
            if "color" in key:
                assert value in (None, ""), (type(model).__name__, key)


# -- validation while typing ---------------------------------------------------------------------------------
def test_accept_is_disabled_while_invalid_and_enabled_once_fixed() -> None:
    form = signup()
    assert set(form.errors) == {"name", "age"}  # untouched required fields count
    assert form._accept.disabled
    assert "Name" in form._accept.tooltip and "Age" in form._accept.tooltip
    assert form.accept() is False
    assert form.state is FormState.PENDING
    form.fill(name="Ada", age="36")
    assert form.errors == {}
    assert not form._accept.disabled
    assert form.accept() is True
    assert form.state is FormState.ACCEPTED


def test_inline_errors_appear_and_disappear_as_values_change() -> None:
    form = signup()
    age = form._fields["age"]
    assert age.note is None  # untouched and empty: nothing to say yet (the title's " *" marks it required)
    assert form._fields["age"].control.description == "Age *"
    age.control.set_state({"value": "2000"})
    assert form.errors["age"]
    assert age.note is None and age.alert.value == f"⚠ Error: {form.errors['age']}"  # its own line
    assert age.alert.layout.display != "none"
    assert "mcp-widgets-invalid" in age.control._dom_classes  # a red border (and aria-invalid)
    age.control.set_state({"value": "20"})
    assert "age" not in form.errors
    assert age.alert.value == ""
    assert age.alert.layout.display == "none"  # an empty line takes no space
    assert "mcp-widgets-invalid" not in age.control._dom_classes
    age.control.set_state({"value": ""})  # touched and emptied: now the error shows
    assert "Error" in age.alert.value
    assert form._fields["note"].note is None  # nothing to say: no model, takes no space


def test_untouched_defaults_are_sent_and_empty_optionals_omitted() -> None:
    form = signup()
    form.fill(name="Ada", age=36)
    assert form.accept()
    assert form.result == mcp_types.ElicitResult(
        action="accept", content={"name": "Ada", "age": 36, "news": True, "plan": "free"}
    )


def test_a_property_named_self_is_filled_from_code() -> None:
    form = ElicitationForm("Who?", {"type": "object", "properties": {"self": {"type": "string"}}}, server="s")
    form.fill(self="Ada")  # was a TypeError: fill's own `self`
    assert form.accept()
    assert form.result == mcp_types.ElicitResult(action="accept", content={"self": "Ada"})


# -- resolving -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("press", "action", "state"),
    [("decline", "decline", FormState.DECLINED), ("cancel", "cancel", FormState.CANCELLED)],
)
def test_decline_and_cancel_send_no_content(press: str, action: str, state: FormState) -> None:
    form = signup()
    form.fill(name="Ada")
    assert getattr(form, press)() is True
    assert form.state is state
    assert form.result == mcp_types.ElicitResult(action=action)
    assert form.outcome == Outcome(Action(action), Reason.PERSON)


def test_only_the_first_answer_counts() -> None:
    form = signup()
    form.fill(name="Ada", age=1)
    assert form.decline() is True
    assert form.accept() is False
    assert form.cancel() is False
    assert form.decline() is False
    assert form.finish("accept") is False
    assert form.state is FormState.DECLINED
    assert form.result == mcp_types.ElicitResult(action="decline")
    with pytest.raises(FormStateError):
        form.fill(name="Bob")


def test_a_button_clicked_by_the_browser_resolves_once() -> None:
    form = signup()
    cancel, decline = form._button(Action.CANCEL), form._button(Action.DECLINE)
    assert cancel is not None and decline is not None
    cancel._handle_custom_msg({"event": "click"}, [])
    decline._handle_custom_msg({"event": "click"}, [])
    assert form.state is FormState.CANCELLED


def test_a_stale_click_on_a_disabled_accept_does_nothing() -> None:
    form = signup()
    form._accept._handle_custom_msg({"event": "click"}, [])
    assert form.state is FormState.PENDING


def test_resolution_leaves_one_line_and_closes_every_other_model(baseline: int) -> None:
    form = signup()
    created = len(own_models()) - baseline
    form.fill(name="Ada", age=36)
    form.accept()
    assert labels(form) == ["Request from shop: accepted by the person"]
    assert len(form.children) == 1
    remaining = len(own_models()) - baseline
    assert remaining == 2, "the form and its line (and the shared Layout and LabelStyle)"
    assert created > remaining
    form.close()
    assert len(own_models()) == baseline


@pytest.mark.parametrize("message", ["Sign up?", ""])
def test_the_closing_line_is_plain_and_keeps_nothing_of_the_message(message: str, baseline: int) -> None:
    # With a message, its Label becomes the line (one model less to open); without one, a line is made.
    form = ElicitationForm(message, SIGNUP, server="shop")
    form.decline()
    (line,) = form.children
    assert isinstance(line, w.Label) and line.comm is not None
    assert line.value == "Request from shop: declined by the person"
    assert line.tooltip is None and line.style.font_weight != "bold"  # not the header
    assert len(own_models()) - baseline == 2
    form.close()
    assert len(own_models()) == baseline


def shown(form: ElicitationForm) -> list[tuple[str, Any]]:
    """What each child of a form is and says (a Label's value, a control's title, a box's children)."""
    out: list[tuple[str, Any]] = []
    for child in form.children:
        if isinstance(child, w.Label):
            out.append(("Label", child.value))
        elif isinstance(child, w.Box):
            out.append((type(child).__name__, [c.description for c in child.children]))
        else:
            out.append((type(child).__name__, getattr(child, "description", None)))
    return out


def handlers_form() -> ElicitationForm:
    return ElicitationForm._for_handler("Sign up?", SIGNUP, server="shop")


def test_a_form_built_for_a_handler_makes_what_only_shows_it_when_read(baseline: int) -> None:
    # In plain Python no front end can show a form: one a handler answers makes the header, message, Decline,
    # Cancel and the button row only when something reads its children (or presses that button).
    form = handlers_form()
    assert not form.trait_has_value("children")
    made = len(own_models()) - baseline
    assert made == 1 + len(form.field_names) + 1  # the form, its controls, Accept
    form.fill(name="A")  # a note appears ("at least 2 characters") before anything was read
    assert not form.trait_has_value("children")
    children = shown(form)
    # header, message, Decline, Cancel, their row, the keyboard hint, the note
    assert len(own_models()) - baseline == made + 7
    whole = signup()
    whole.fill(name="A")
    assert children == shown(whole)  # the same as a form built whole
    whole.close()
    assert children[:3] == [("Label", "Request from shop"), ("Label", "Sign up?"), ("Text", "Name *")]
    assert children[3][0] == "Label" and "Error" in children[3][1]  # the note, under its control
    assert children[-3:] == [
        ("HBox", ["Accept", "Decline", "Cancel"]),
        ("Label", "Keys: Enter in the last field accepts · Esc cancels"),
        ("KeyCatcher", None),
    ]
    form.close()
    assert len(own_models()) == baseline


def test_a_form_built_directly_is_whole_at_once() -> None:
    form = signup()
    assert form.trait_has_value("children")  # code that walks every model never sees it make models
    form.close()


def test_a_front_end_gets_the_whole_form_as_it_opens(kernel_comms: list[Any]) -> None:
    form = handlers_form()
    assert form.trait_has_value("children")  # in a kernel even a handler's form is built whole
    opened = {data["state"]["_model_name"] for kind, data in kernel_comms if kind == "comm_open"}
    assert {"VBoxModel", "HBoxModel", "LabelModel", "ButtonModel", "TextModel"} <= opened
    form.close()


def test_a_handlers_form_answered_before_anything_read_it_leaves_its_line(baseline: int) -> None:
    form = handlers_form()
    form.fill(name="Ada", age=36)
    assert form.accept()
    assert form.trait_has_value("children")  # set as it resolved: nothing is made when it is read later
    assert len(own_models()) - baseline == 2  # the form and its line; the header was never made
    assert labels(form) == ["Request from shop: accepted by the person"]
    form.close()
    assert len(own_models()) == baseline
    closed = handlers_form()
    closed.close()
    assert closed.children == ()  # closed before anything read it: nothing is made
    assert len(own_models()) == baseline


def test_closing_a_pending_form_cancels_it_and_closes_everything(baseline: int) -> None:
    form = signup()
    seen = []
    form.add_done_callback(lambda f: seen.append(f.outcome))
    form.close()
    assert form.state is FormState.CANCELLED
    assert seen == [Outcome(Action.CANCEL, Reason.HANDLER, note="the form was closed")]
    assert len(own_models()) == baseline


def test_fill_an_unknown_field_raises_field_not_found() -> None:
    form = signup()
    with pytest.raises(FieldNotFound) as info:
        form.fill(nmae="x")
    assert info.value.name == "nmae"
    assert "name" in str(info.value)
    assert isinstance(info.value, KeyError)


def test_clicks_inside_acting_as_are_recorded_for_the_handler() -> None:
    form = signup()
    with form.acting_as(Reason.HANDLER, "autofill"):
        form.fill(name="Ada", age=3)
        assert form.accept()
    assert form.outcome == Outcome(Action.ACCEPT, Reason.HANDLER, by="autofill")
    assert labels(form) == ["Request from shop: accepted by handler 'autofill'"]


def test_acting_as_restores_the_person_afterwards() -> None:
    form = signup()
    with form.acting_as("policy", "headless"):
        pass
    form.cancel()
    assert form.outcome == Outcome(Action.CANCEL, Reason.PERSON)


def test_finish_ends_the_form_with_a_reason() -> None:
    form = signup()
    assert form.finish(Action.CANCEL, reason=Reason.WITHDRAWN, note="server went away") is True
    assert form.result == mcp_types.ElicitResult(action="cancel")
    assert labels(form) == ["Request from shop: cancelled: server went away"]


def test_finish_accepts_only_a_valid_form() -> None:
    form = signup()
    assert form.finish("accept", reason="policy", by="auto") is False
    assert form.state is FormState.PENDING
    form.fill(name="Ada", age=5)
    assert form.finish("accept", reason="policy", by="auto") is True
    assert form.outcome == Outcome(Action.ACCEPT, Reason.POLICY, by="auto")
    assert form.result.content["name"] == "Ada"


def test_a_form_with_schema_errors_can_never_be_accepted() -> None:
    from mcp_widgets.core.schema import parse_schema

    spec = parse_schema(schema({"ok": {"type": "string"}, "nested": {"type": "object"}}))
    form = ElicitationForm.from_spec("m", spec, server="s")
    assert form.field_names == ("ok",)
    form.fill(ok="fine")
    assert form._accept.disabled
    assert form.accept() is False
    assert form.finish("accept") is False
    assert form.decline() is True


# -- waiting -------------------------------------------------------------------------------------------------
def test_done_callbacks_run_once_and_immediately_when_already_resolved() -> None:
    form = signup()
    seen: list[FormState] = []
    form.add_done_callback(lambda f: seen.append(f.state))
    form.cancel()
    form.cancel()
    assert seen == [FormState.CANCELLED]
    form.add_done_callback(lambda f: seen.append(f.state))
    assert seen == [FormState.CANCELLED, FormState.CANCELLED]


def test_a_failing_done_callback_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    form = signup()
    seen = []

    def boom(_form: ElicitationForm) -> None:
        raise RuntimeError("boom")

    form.add_done_callback(boom)
    form.add_done_callback(lambda f: seen.append(f.state))
    with caplog.at_level(logging.ERROR, logger="mcp_widgets"):
        assert form.decline() is True
    assert seen == [FormState.DECLINED]
    assert "done callback" in caplog.text


def test_wait_from_two_loops_and_after_resolution() -> None:
    form = signup()
    results: list[mcp_types.ElicitResult] = []
    started = threading.Event()

    def other_loop() -> None:
        async def main() -> None:
            waiting = asyncio.ensure_future(form.wait())
            await asyncio.sleep(0)
            started.set()
            results.append(await waiting)

        asyncio.run(main())

    thread = threading.Thread(target=other_loop)
    thread.start()
    assert started.wait(timeout=30)

    async def here() -> mcp_types.ElicitResult:
        waiting = asyncio.ensure_future(form.wait())
        await asyncio.sleep(0)
        form.cancel()
        return await waiting

    results.append(asyncio.run(here()))
    thread.join(timeout=30)
    results.append(asyncio.run(form.wait()))  # already resolved: at once
    assert results == [mcp_types.ElicitResult(action="cancel")] * 3


# -- light, leak-free, private -------------------------------------------------------------------------------
TWELVE = schema(
    {
        "t1": {"type": "string", "title": "Text", "description": "Some text"},
        "t2": {"type": "string", "format": "email"},
        "t3": {"type": "string", "format": "uri"},
        "d1": {"type": "string", "format": "date"},
        "d2": {"type": "string", "format": "date-time"},
        "n1": {"type": "integer", "minimum": 0},
        "n2": {"type": "number"},
        "b1": {"type": "boolean"},
        "c1": {"type": "string", "enum": ["a", "b"]},
        "c2": {"type": "string", "enum": [f"v{i}" for i in range(8)]},
        "m1": {"type": "array", "items": {"enum": ["x", "y"]}},
        "t4": {"type": "string", "description": "More text"},
    },
    required=["t1", "n1"],
)


def test_a_twelve_field_form_is_light(baseline: int) -> None:
    form = ElicitationForm("Twelve questions", TWELVE, server="s")
    assert len(form.children) > 12  # everything it shows is made (in plain Python, once that is read)
    count = len(own_models()) - baseline
    print(f"\nwidget models for a 12-field form: {count}")
    assert len(form.field_names) == 12
    assert count <= 40
    form.close()
    assert len(own_models()) == baseline


def test_a_thousand_forms_leave_no_model_behind(baseline: int) -> None:
    small = schema({"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}}, ["a"])
    for i in range(1000):
        form = ElicitationForm(f"question {i}", small, server="s")
        kind = i % 5
        if kind == 0:
            form.fill(a="x", b=i)
            assert form.accept()
        elif kind == 1:
            form.decline()
        elif kind == 2:
            form.cancel()
        elif kind == 3:
            form.finish("cancel", reason="timeout")
        # kind 4: closed while pending
        form.close()
    assert len(own_models()) == baseline


def test_every_form_shares_a_fixed_few_layouts_and_styles_that_hold_nothing_typed(baseline: int) -> None:
    canary = "canary-shared-5e21"
    before = set(live_models())

    def answer(n: int) -> set[str]:
        used = set()
        for _ in range(n):
            form = ElicitationForm("m", ALL_KINDS, server="s")
            forms.append(form)
            for model in (form, *form._kit.models):
                used |= {m.model_id for m in (model.layout, getattr(model, "style", None)) if m is not None}
            form.fill(name=canary, email=f"{canary}@example.com", site=f"https://{canary}.example")
            assert form.accept()
            form.close()
        return used

    forms: list[ElicitationForm] = []
    used = answer(1)
    print(f"\nshared Layout/Style models of a form with every kind of field: {len(used)}")
    assert len(used) <= 9  # 3 Layouts (default, hidden, note); 6 Styles (2 for labels, 4 for controls)
    shared = {m.model_id: m for m in shared_models()}
    assert used <= set(shared)
    # The same models, none added, none closed: the only models left are shared ones.
    assert answer(50) == used
    assert len(forms) == 51 and all(form._keys is shared_catcher() for form in forms)  # one keyboard helper
    assert {m.model_id for m in shared_models()} == set(shared)
    assert set(live_models()) - before <= set(shared)
    assert len(own_models()) == baseline
    for model in shared.values():
        # (the explorer's keyboard helper, one per process too, once an explorer was shown)
        assert isinstance(model, (w.Layout, w.Style, KeyCatcher, ExplorerKeys)), type(model).__name__
        assert canary not in json.dumps(model.get_state(), default=str)


def test_a_shared_model_closed_from_outside_is_made_again() -> None:
    # In a fresh interpreter: closing a shared model breaks every live widget that uses it, which here
    # would include other tests' widgets.
    code = """
import ipywidgets as w
from mcp_widgets.widgets import ElicitationForm
schema = {"type": "object", "properties": {"name": {"type": "string"}}}
first = ElicitationForm("m", schema, server="s")
layout, keys = first.layout, first._keys
w.Widget.close_all()
second = ElicitationForm("m", schema, server="s")
assert second.layout is not layout and second.layout.comm is not None
assert second._keys is not keys and second._keys.comm is not None and second._keys.layout.comm is not None
second._handle_custom_msg({"key": "Escape"}, [])
assert second.state.value == "cancelled"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_hostile_server_text_only_reaches_plain_text_widgets() -> None:
    hostile = schema(
        {
            "f": {"type": "string", "title": HOSTILE, "description": HOSTILE},
            "c": {"type": "string", "oneOf": [{"const": "x", "title": HOSTILE}]},
            "m": {"type": "array", "items": {"anyOf": [{"const": "y", "title": HOSTILE}]}},
            # more choices than checkboxes are for: a list
            "n": {
                "type": "array",
                "items": {"anyOf": [{"const": f"n{i}", "title": HOSTILE} for i in range(9)]},
            },
            "l": {"type": "string", "enum": ["z"], "enumNames": [HOSTILE]},
            "d": {
                "type": "string",
                "oneOf": [{"const": f"v{i}", "title": HOSTILE + str(i)} for i in range(6)],
            },
        }
    )
    form = ElicitationForm(HOSTILE, hostile, server=HOSTILE, declared_name=HOSTILE)
    holders = []
    for model in form_models(form):
        assert not isinstance(model, (w.HTML, w.HTMLMath, w.Output)), type(model).__name__
        state = model.get_state()
        assert not state.get("description_allow_html"), type(model).__name__
        if HOSTILE in json.dumps(state, default=str):
            holders.append(type(model).__name__)
    assert "Label" in holders and "Text" in holders
    assert {"RadioButtons", "Checkbox", "SelectMultiple", "Dropdown"} <= set(holders)
    stock = {"Label", "Text", "RadioButtons", "Checkbox", "SelectMultiple", "Dropdown", "Button"}
    assert set(holders) <= stock


def test_a_canary_typed_everywhere_is_sent_but_kept_nowhere() -> None:
    canary = "canary-7f3a9c"
    text_kinds = schema(
        {
            "a": {"type": "string"},
            "b": {"type": "string", "pattern": "^canary"},
            "c": {"type": "string", "maxLength": 50},
        },
        ["a"],
    )
    form = ElicitationForm("m", text_kinds, server="s")
    form.fill(a=canary, b=canary, c=canary)
    assert any(canary in json.dumps(m.get_state(), default=str) for m in live_models().values())
    assert form.accept()
    assert form.result.content == {"a": canary, "b": canary, "c": canary}
    assert canary not in repr(form)
    assert canary not in form.outcome.describe()
    assert canary not in str(form.outcome)
    for model in live_models().values():
        assert canary not in json.dumps(model.get_state(), default=str), type(model).__name__
    assert form.errors == {}


def test_the_header_names_the_server_and_what_it_calls_itself_without_nested_parentheses() -> None:
    empty = {"type": "object", "properties": {}}
    plain = ElicitationForm("m", empty, server="demo", declared_name="d")
    assert plain._header == "Request from demo (calls itself “d”)"
    dated = ElicitationForm("m", empty, server="demo (2025-11-25)", declared_name="d")
    assert dated._header == "Request from demo (2025-11-25), which calls itself “d”"
