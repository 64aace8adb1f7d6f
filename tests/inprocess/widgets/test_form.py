"""ElicitationForm: what it shows, how it resolves, what it leaves behind."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

import ipywidgets as w
import mcp_types
import pytest

from mcp_widgets.core.exceptions import FieldNotFound, FormStateError, SchemaError
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, FormState

from .conftest import (
    ALL_KINDS,
    HOSTILE,
    card_row,
    live_models,
    note,
    own_models,
    page_edit,
    page_press,
    schema,
    verdict,
)

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


def labels(form: ElicitationForm) -> list[str]:
    """The lines of text the page shows: header and message while pending, then the one closing line."""
    if form.closing_line:
        return [form.closing_line]
    card = form.card
    return [
        card["header"],
        *([card["message"]] if card["message"] else []),
        *([form.hint] if form.hint else []),
    ]


# -- what it shows -------------------------------------------------------------------------------------------
def test_header_names_the_server_and_the_message_is_a_label() -> None:
    form = signup()
    assert labels(form)[:2] == ["Request from shop", "Sign up?"]
    assert form.card["header"] == "Request from shop" and form.card["message"] == "Sign up?"
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


def test_the_buttons_are_pressed_by_message_and_a_stale_accept_does_nothing() -> None:
    form = signup()
    page_press(form, "accept")  # disabled on the page already: a stale press
    assert form.state is FormState.PENDING
    page_press(form, "nonsense")
    assert form.state is FormState.PENDING
    page_press(form, "decline")
    assert form.outcome == Outcome(Action.DECLINE, Reason.PERSON)


def test_empty_properties_is_a_pure_confirmation() -> None:
    form = ElicitationForm("Delete the file?", {"type": "object", "properties": {}}, server="fs")
    assert form.field_names == ()
    hint = "Keys: Tab to Accept and press Enter · Esc cancels"
    assert labels(form) == ["Request from fs", "Delete the file?", hint]
    assert form.card["rows"] == []
    assert form.accept_ok is True
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
    data = bundle[0] if isinstance(bundle, tuple) else bundle  # anywidget's: (data, metadata)
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == form.model_id
    outer = w.VBox(children=(form,))  # placeable inside another box
    assert outer.children == (form,)
    outer.close()


def test_the_form_is_one_model_and_its_css_uses_the_themes_variables(baseline: int) -> None:
    form = ElicitationForm("m", ALL_KINDS, server="s")
    assert len(own_models()) - baseline == 1  # models per question: 1
    for line in form._css.splitlines():
        if "#" in line and "color" in line and "var(" not in line:
            raise AssertionError(f"a colour without a theme variable: {line}")
    form.close()
    assert len(own_models()) == baseline


# -- validation while typing ---------------------------------------------------------------------------------
def test_accept_is_disabled_while_invalid_and_enabled_once_fixed() -> None:
    form = signup()
    assert set(form.errors) == {"name", "age"}  # untouched required fields count
    assert not form.accept_ok
    assert "Name" in form.accept_why and "Age" in form.accept_why
    assert form.accept() is False
    assert form.state is FormState.PENDING
    form.fill(name="Ada", age="36")
    assert form.errors == {}
    assert form.accept_ok and form.accept_why == "Send the answers to shop"
    assert form.accept() is True
    assert form.state is FormState.ACCEPTED


def test_inline_errors_appear_and_disappear_as_values_change() -> None:
    form = signup()
    assert note(form, "age") == "" and verdict(form, "age") == ""  # untouched and empty: nothing to say yet
    assert card_row(form, "age")["title"] == "Age *"
    page_edit(form, "age", "2000")
    assert form.errors["age"]
    assert verdict(form, "age") == f"⚠ Error: {form.errors['age']}"  # its own line (and a red border)
    page_edit(form, "age", "20")
    assert "age" not in form.errors and verdict(form, "age") == ""
    page_edit(form, "age", "")  # touched and emptied: now the error shows
    assert "Error" in verdict(form, "age")
    assert note(form, "note") == ""


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
    page_press(form, "cancel")
    page_press(form, "decline")
    assert form.state is FormState.CANCELLED


def test_a_stale_click_on_a_disabled_accept_does_nothing() -> None:
    form = signup()
    page_press(form, "accept")
    assert form.state is FormState.PENDING


def test_resolution_leaves_one_line_and_nothing_else(baseline: int) -> None:
    form = signup()
    assert len(own_models()) - baseline == 1
    form.fill(name="Ada", age=36)
    form.accept()
    assert labels(form) == ["Request from shop: accepted by the person"]
    assert form.card == {} and form.verdicts == {} and form.hint == "" and not form.accept_ok
    assert len(own_models()) - baseline == 1
    form.close()
    assert len(own_models()) == baseline


@pytest.mark.parametrize("message", ["Sign up?", ""])
def test_the_closing_line_is_plain_and_keeps_nothing_of_the_message(message: str) -> None:
    form = ElicitationForm(message, SIGNUP, server="shop")
    form.decline()
    assert form.closing_line == "Request from shop: declined by the person"


def test_a_form_built_for_a_handler_is_the_same_one_model(baseline: int) -> None:
    form = ElicitationForm._for_handler("Sign up?", SIGNUP, server="shop")
    assert len(own_models()) - baseline == 1
    assert {**form.card, "id": ""} == {**signup().card, "id": ""}  # the same card (its own model id)
    assert form.card["id"] == form.model_id  # the page names the form's option groups by it
    form.fill(name="Ada", age=36)
    assert form.accept()
    assert labels(form) == ["Request from shop: accepted by the person"]


def test_a_front_end_gets_the_whole_form_as_it_opens(kernel_comms: list[Any]) -> None:
    form = signup()
    opened = [data["state"] for kind, data in kernel_comms if kind == "comm_open"]
    assert len(opened) == 1 and opened[0]["_model_name"] == "AnyModel"
    assert opened[0]["card"]["rows"][0]["name"] == "name"
    assert opened[0]["hint"] and opened[0]["accept_why"]
    form.close()


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
    problems = [r for r in form.card["rows"] if r["widget"] == "problem"]
    assert len(problems) == 1 and "nested" in problems[0]["note"]  # where the property would be
    form.fill(ok="fine")
    assert not form.accept_ok
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


def test_a_twelve_field_form_is_one_model(baseline: int) -> None:
    form = ElicitationForm("Twelve questions", TWELVE, server="s")
    count = len(own_models()) - baseline
    print(f"\nwidget models for a 12-field form: {count}")
    assert len(form.field_names) == 12 and len(form.card["rows"]) == 12
    assert count == 1
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


def test_the_module_is_read_once_per_process() -> None:
    first, second = signup(), signup()
    assert first._esm is second._esm  # one string for every form (the class's default)
    assert "renderFields" in first._esm and "renderQuestion" in first._esm
    assert "import " not in first._esm.replace("export default", "")  # joined: nothing to fetch


def test_hostile_server_text_is_only_ever_text_on_the_page() -> None:
    hostile = schema(
        {
            "f": {"type": "string", "title": HOSTILE, "description": HOSTILE},
            "c": {"type": "string", "oneOf": [{"const": "x", "title": HOSTILE}]},
            "m": {"type": "array", "items": {"anyOf": [{"const": "y", "title": HOSTILE}]}},
            "l": {"type": "string", "enum": ["z"], "enumNames": [HOSTILE]},
        }
    )
    form = ElicitationForm(HOSTILE, hostile, server=HOSTILE, declared_name=HOSTILE)
    assert HOSTILE in json.dumps(form.card)  # shown as it is, as text: the page sets textContent only
    esm = form._esm
    assert "innerHTML" not in esm and "insertAdjacentHTML" not in esm and "outerHTML" not in esm
    assert "mathjax_ignore" in esm  # the card is marked so MathJax never typesets it


def test_a_canary_typed_everywhere_is_sent_but_kept_nowhere(kernel_comms: list[Any]) -> None:
    canary = "canary-7f3a9c"
    form = ElicitationForm("m", ALL_KINDS, server="s")
    page_edit(form, "name", canary)  # typed on the page
    form.fill(email=f"{canary}@example.org")  # filled from Python
    for model in live_models().values():  # the widget state a saved notebook would hold
        assert canary not in json.dumps(model.get_state(), default=str), type(model).__name__
    updates = [data for kind, data in kernel_comms if kind == "comm_msg" and data.get("method") == "update"]
    assert updates and canary not in json.dumps(updates)  # no state update ever carried it
    form.fill(site="https://example.org")
    assert form.accept()
    assert form.result.content["name"] == canary
    assert canary not in repr(form)
    assert canary not in form.outcome.describe()
    assert canary not in str(form.outcome)
    assert form.values() == {} and form.errors == {}
    for model in live_models().values():
        assert canary not in json.dumps(model.get_state(), default=str), type(model).__name__


def test_a_view_that_renders_later_asks_for_the_values(kernel_comms: list[Any]) -> None:
    form = signup()
    form._handle_custom_msg({"ready": True}, [])
    customs = [d["content"] for k, d in kernel_comms if k == "comm_msg" and d.get("method") == "custom"]
    assert customs == []  # nothing typed yet: the card's defaults are what it shows
    page_edit(form, "name", "Ada")
    form._handle_custom_msg({"ready": True}, [])
    customs = [d["content"] for k, d in kernel_comms if k == "comm_msg" and d.get("method") == "custom"]
    assert customs[-1] == {"values": {"name": "Ada"}}


def test_a_second_view_gets_what_the_first_one_typed(kernel_comms: list[Any]) -> None:
    form = signup()
    form._view_count = 2  # a mw.pending() list shows it too
    page_edit(form, "name", "Ad", view="one")
    customs = [d["content"] for k, d in kernel_comms if k == "comm_msg" and d.get("method") == "custom"]
    assert customs == [{"values": {"name": "Ad"}, "except": "one"}]
    form._view_count = 1
    page_edit(form, "name", "Ada", view="one")
    assert len([d for k, d in kernel_comms if k == "comm_msg" and d.get("method") == "custom"]) == 1


def test_the_header_names_the_server_and_what_it_calls_itself_without_nested_parentheses() -> None:
    empty = {"type": "object", "properties": {}}
    plain = ElicitationForm("m", empty, server="demo", declared_name="d")
    assert plain._header == "Request from demo (calls itself “d”)"
    dated = ElicitationForm("m", empty, server="demo (2025-11-25)", declared_name="d")
    assert dated._header == "Request from demo (2025-11-25), which calls itself “d”"
