"""A server's question shown by its own app (app-rendered elicitation, SEP-3118): the app answers, our form
checks, and the plain form is always one click (or one failure) away.

The card is ours: the form's header and message, its Decline and Cancel buttons, and "Use the plain form";
the app replaces only the fields and Accept. Once the app completed its handshake the host sends it the
server's request unchanged (`elicitation/create`, as a server would); its `ElicitResult` is applied to the
form as a person's answer would be: decline and cancel as the buttons, accept by filling the form's fields
and pressing Accept, so the form's own rules (types, formats, enums, required, bounds) decide. An answer the
form refuses is not sent: the plain form comes back with the app's values in it and says why (field and
rule, never a value). Every failure (the resource missing or of another type, an app that does not start
within QUESTION_START seconds, an error or a malformed answer) shows the plain form with a line.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ... import kernel
from ...core.exceptions import FieldNotFound
from .bridge import AppBridge, OpenLink, ReadResource

if TYPE_CHECKING:
    from ...widgets import AppView, ElicitationForm
    from ..call import Call

log = logging.getLogger("mcp_widgets.apps")

__all__ = ["QUESTION_START", "QuestionBridge", "apply_answer"]

QUESTION_START = 10.0
"""Seconds an app has to start (and be sent the question) before the plain form shows instead."""


def _no_calls(name: str, arguments: dict[str, Any] | None, output: Any) -> Call:
    raise PermissionError("an app answering a question calls no tools")


class QuestionBridge(AppBridge):
    """The bridge of an app that answers one question: after its handshake it gets the request, and its
    answer (or its failure) goes to `answered` (or `failed`), once."""

    def __init__(
        self,
        view: AppView,
        *,
        params: Mapping[str, Any],
        server: str,
        read: ReadResource,
        open_link: OpenLink,
        answered: Callable[[Any], None],
        failed: Callable[[str], None],
    ) -> None:
        super().__init__(
            view,
            tool=None,
            arguments=None,
            server=server,
            tools=list,
            call=_no_calls,
            read=read,
            open_link=open_link,
        )
        self.params = dict(params)
        self._answered = answered
        self._failed = failed
        self.settled = False

    def _host_extras(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"elicitation": {}}, {}

    def _started(self) -> None:
        self._request("elicitation/create", self.params, self._answer)

    def _answer(self, result: Any) -> None:
        if self.settled:
            return
        self.settled = True
        if not isinstance(result, dict) or result.get("action") not in ("accept", "decline", "cancel"):
            self._failed("the app's answer was not an elicitation result")
            return
        self._answered(result)

    def fail(self, why: str) -> None:
        super().fail(why)
        if not self.settled:
            self.settled = True
            self._failed(f"the app could not be shown: {why}")

    def _left(self, why: str) -> None:
        super()._left(why)
        if not self.settled:
            self.settled = True
            self._failed(why)

    def timed_out(self) -> None:
        """The app did not start in time: the plain form takes over."""
        if not self.settled and not self.initialized:
            self.settled = True
            self._failed(f"the app did not start within {QUESTION_START:g} s")


def apply_answer(form: ElicitationForm, result: Mapping[str, Any]) -> str | None:
    """Answer `form` with an app's `ElicitResult`, as a person would; returns why it was not sent (None
    when it was). Accepted content goes through the form's own fields and checks."""
    action = result.get("action")
    if action == "decline":
        form.decline()
        return None
    if action == "cancel":
        form.cancel()
        return None
    content = result.get("content", {})
    if not isinstance(content, dict):
        return "the app's answer has no content object"
    unknown = [key for key in content if key not in form.field_names]
    if unknown:
        return f"the app's answer has {len(unknown)} field(s) the question does not ask"
    try:
        form.fill(**content)
    except FieldNotFound:
        return "the app's answer has a field the question does not ask"
    except (TypeError, ValueError):
        return "the app's answer has a value no field of the question takes"
    problems = form.errors
    if problems:
        return "the app's answer does not fit the question: " + "; ".join(
            f"{name}: {rule}" for name, rule in problems.items()
        )
    if not form.accept():
        return "the app's answer does not fit the question"
    return None


def answer_later(form: ElicitationForm, result: Mapping[str, Any]) -> None:
    """`apply_answer` on the main thread; a refused answer brings the plain form back, saying why."""

    def apply() -> None:
        why = apply_answer(form, result)
        if why is not None:
            log.info("an app's answer was refused: %s", why)
            form.use_plain_form(f"Not sent: {why}. Fix it here and press Accept.")

    kernel.post(apply)
