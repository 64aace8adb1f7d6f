"""The keyboard helper: what its ESM listens for, and how the form handles its messages."""

from __future__ import annotations

import ipywidgets as w
import mcp_types

from mcp_widgets._outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, FormState
from mcp_widgets.widgets._fields import FIRST_CLASS, LAST_CLASS, WRAP_CLASS
from mcp_widgets.widgets._keys import KeyCatcher

from .conftest import schema

FORM = schema(
    {"first": {"type": "string"}, "middle": {"type": "integer"}, "last": {"type": "string"}},
    required=["first"],
)


def press(form: ElicitationForm, content: object) -> None:
    """Deliver a message as the browser's keydown listener sends it."""
    form._keys._handle_custom_msg(content, [])


def test_the_helper_is_an_invisible_child_of_the_form() -> None:
    form = ElicitationForm("m", FORM, server="s")
    assert isinstance(form._keys, KeyCatcher)
    assert form.children[-1] is form._keys
    assert form._keys.layout.display == "none"
    assert repr(form._keys) == "<KeyCatcher>"


def test_first_and_last_fields_are_marked_for_focus_and_enter() -> None:
    form = ElicitationForm("m", FORM, server="s")
    controls = [form._fields[n].control for n in form.field_names]
    assert FIRST_CLASS in controls[0]._dom_classes
    assert LAST_CLASS in controls[-1]._dom_classes
    assert all(FIRST_CLASS not in c._dom_classes and LAST_CLASS not in c._dom_classes for c in controls[1:-1])


def test_the_esm_listens_on_the_parent_and_sends_only_escape_and_enter() -> None:
    esm = KeyCatcher._esm
    assert "el.parentElement" in esm
    # capture phase: stock text inputs stop keydown from bubbling
    assert 'addEventListener("keydown", onKey, true)' in esm
    assert 'removeEventListener("keydown", onKey, true)' in esm
    assert f".{LAST_CLASS}" in esm and f".{FIRST_CLASS} input" in esm
    assert 'model.send({ key: "Escape" })' in esm
    assert 'model.send({ key: "Enter", in_last_field: true })' in esm
    assert "export default" in esm
    assert f".{WRAP_CLASS}" in KeyCatcher._css


def test_escape_cancels_as_the_person() -> None:
    form = ElicitationForm("m", FORM, server="s")
    press(form, {"key": "Escape"})
    assert form.state is FormState.CANCELLED
    assert form.outcome == Outcome(Action.CANCEL, Reason.PERSON)


def test_enter_in_the_last_field_accepts_when_valid() -> None:
    form = ElicitationForm("m", FORM, server="s")
    press(form, {"key": "Enter", "in_last_field": True})
    assert form.state is FormState.PENDING  # "first" is required and empty: Accept is disabled
    form.fill(first="a", last="z")
    press(form, {"key": "Enter"})  # not from the last field: ignored
    assert form.state is FormState.PENDING
    press(form, {"key": "Enter", "in_last_field": True})
    assert form.result == mcp_types.ElicitResult(action="accept", content={"first": "a", "last": "z"})


def test_other_messages_are_ignored() -> None:
    form = ElicitationForm("m", FORM, server="s")
    for content in (
        {"key": "a"},
        {"key": "Tab"},
        {},
        "Escape",
        ["Escape"],
        {"key": "Enter", "in_last_field": 1},
    ):
        press(form, content)
    assert form.state is FormState.PENDING


def test_keys_inside_acting_as_are_recorded_for_the_handler() -> None:
    form = ElicitationForm("m", FORM, server="s")
    with form.acting_as(Reason.HANDLER, "robot"):
        press(form, {"key": "Escape"})
    assert form.outcome == Outcome(Action.CANCEL, Reason.HANDLER, by="robot")


def test_keys_after_resolution_do_nothing() -> None:
    form = ElicitationForm("m", FORM, server="s")
    keys = form._keys
    form.decline()
    keys._handle_custom_msg({"key": "Escape"}, [])
    assert form.state is FormState.DECLINED
    assert form.children != (keys,)
    assert isinstance(form.children[0], w.Label)
