"""UrlCard: a URL-mode elicitation as a consent card (open a page in the browser, or decline / cancel).

One widget model (an anywidget), drawn by the question card's renderer (`assets/question.js`, its URL
block). Its synced state holds only what the server sent and the kernel decided: who asks, the message, the
host and the full URL as text, the warnings, the buttons of the moment, the waiting line, the one live link
once consent was given, the closing line.

Nothing is fetched or opened before the person consents. "Open page" both consents and opens the page, in one
click: a browser opens a new tab only inside the click itself, so the card's view does it (keys.js, joined
into the module), with `window.open(url, "_blank", "noopener,noreferrer")`, for the URL the kernel checked and
sent it as a custom message (`open_url`, withdrawn with null once the round ended), and tells the kernel
(`opened`), which takes that as the consent. A click that comes without it (a view not yet told the URL, a
Python click, a handler) only consents, and the card then shows the one live link it ever has: an anchor to
the URL for a new tab, with `noopener noreferrer`.

Life of a card (each round resolves exactly once, like a form):

    PENDING --Open page--> ACCEPTED, waiting --complete() / Done--> one plain line
       |                        |
       |                        +--ask_again()--> PENDING (next round: "I've finished — try again")
       +--Decline / Cancel--> one plain line

`complete()` also answers a pending retry round of a card that has an elicitation id (2025-11-25, -32042).

A URL that `inspect_url` refuses still makes a card, but it resolves at once as decline (Reason.REFUSED_URL,
the note says why) and shows only its closing line: clients normally check `inspect_url` first.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

import traitlets as t

from .. import kernel
from ..core.exceptions import FormStateError
from ..core.outcome import Action, Outcome, Reason
from ..core.text import shown
from ..core.urls import UrlCheck, inspect_url, visible
from ._answerable import FormState
from ._kit import Kit, asker, known_keys
from ._link_card import LinkCardModel

__all__ = ["UrlCard"]

_LAYOUT = Kit()
_PRESSES = {"accept": Action.ACCEPT, "decline": Action.DECLINE, "cancel": Action.CANCEL}


class UrlCard(LinkCardModel):
    """Asks the person whether to open a server's web page; shown inline where the request was made.

    It names the server that asks, shows the message and the full URL as plain text, the host on its own
    line (with its decoded or ASCII form when they differ), and a warning line for each suspicious trait.
    A URL that `inspect_url` refuses gives a card that is already declined (Reason.REFUSED_URL, its note
    says why): no buttons, no handler needed, `wait()` returns at once. It is one widget model (see the
    module docstring).

    Args:
        message: The server's message, shown as plain text.
        url: The URL the server wants opened.
        server: The name we know the server by (always shown).
        declared_name: The name the server gives itself, shown beside `server` when it differs.
        elicitation_id: The request's `elicitationId` (2025-11-25), kept for the client; not shown.
    """

    _NOUN = "card"
    _WHAT = "a URL card"
    kind: ClassVar[str] = "url"
    """What sort of `Card` this is (handlers decide by it)."""

    _anywidget_id = t.Unicode("mcp_widgets.UrlCard", help="anywidget's name for this class.").tag(sync=True)

    def __init__(
        self,
        message: str,
        url: str,
        *,
        server: str,
        declared_name: str | None = None,
        elicitation_id: str | None = None,
    ) -> None:
        self._start()
        self._outcomes: list[Outcome] = []
        self._round = 1
        self._ended = False  # the card is down to its closing line (or closed)
        self._completed = False
        self._opened = False  # the card's view opened the page in the click that consented
        self._open_on = True  # whether the accept button ("Open page", "I've finished") is enabled
        self._again = False  # a later round: its accept button only says the person has finished
        self.server = server
        self.declared_name = declared_name
        self.message = message
        self.url = url
        self.elicitation_id = elicitation_id
        self.check: UrlCheck = inspect_url(url)
        """What `inspect_url` found: allowed or why not, the host, warnings, the redacted form."""

        self._header = f"Request from {asker(server, declared_name)}"
        if self.check.allowed:
            kernel.attach()  # so that every message reaches us even while a cell awaits this card
        model_id = uuid.uuid4().hex  # chosen here, so the card can name it (as a form's does)
        super().__init__(
            card={**self._card(), "id": model_id} if self.check.allowed else {"kind": "url"},
            buttons=self._button_row() if self.check.allowed else [],
            _view_count=0,
            model_id=model_id,
            layout=_LAYOUT.layout(),  # the process's shared Layout: one model per card
            **known_keys(type(self)),
        )
        self.on_msg(self._receive)
        if not self.check.allowed:
            note = (self.check.refusal or "refused").rstrip(".")
            self._resolve(Action.DECLINE, Reason.REFUSED_URL, None, note)

    def _card(self) -> dict[str, Any]:
        """The card's text: server text made `shown` (control characters visible), never HTML."""
        check = self.check
        host = visible(check.host)
        if check.host_unicode:
            host += f"  (reads as “{visible(check.host_unicode)}”)"
        if check.host_ascii:
            host += f"  (the browser goes to “{check.host_ascii}”)"
        return {
            "kind": "url",
            "header": shown(self._header),
            "message": shown(self.message),
            "host": shown(f"Opens a page on: {host}"),
            "address": shown(f"Full address: {check.display}"),
            "warnings": [shown(f"⚠ Warning: {text}") for text in check.warnings],
        }

    # -- what the card shows ---------------------------------------------------------------------------------
    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        """How every round so far ended, oldest first."""
        return tuple(self._outcomes)

    @property
    def round(self) -> int:
        """1, then one more for each `ask_again`."""
        return self._round

    @property
    def waiting(self) -> bool:
        """True after consent while the card waits for the server (until `complete`, Done, or `ask_again`)."""
        return self._state is FormState.ACCEPTED and not self._ended

    @property
    def completed(self) -> bool:
        """True once `complete` ended the waiting."""
        return self._completed

    def __repr__(self) -> str:
        waiting = " waiting" if self.waiting else ""
        return (
            f"<UrlCard server={self.server!r} host={visible(self.check.host)!r} {self._state.value}{waiting}>"
        )

    # -- driving it as a person would ------------------------------------------------------------------------
    def accept(self) -> bool:
        """Click "Open page" (consent); False once the round is resolved or the URL was refused."""
        return self._press_action(Action.ACCEPT)

    def dismiss(self) -> bool:
        """Click Done while waiting: the card shrinks to its closing line, nothing is sent. Else False."""
        if not self.waiting:
            return False
        self._done_clicked()
        return self._ended

    # -- after consent: the two protocol generations ---------------------------------------------------------
    def complete(self, *, note: str = "the server reported it finished") -> bool:
        """The out-of-band part is over: the card shrinks to its closing line, ending with `note`.

        2025-11-25: call it on `notifications/elicitation/complete` for this card's `elicitation_id` (matching
        ids, and ignoring unknown or finished ones, is the client's job), or with another note when the call
        ends. A waiting card just ends. A card with an `elicitation_id` whose retry round (see `ask_again`) is
        pending first answers that round `accept` (recorded as policy "elicitation/complete"): the server says
        the person finished, so the call may be retried. Otherwise returns False and changes nothing.
        """
        with self._lock:
            retry_round = (
                self._state is FormState.PENDING
                and self._round > 1
                and self.elicitation_id is not None
                and not self._ended
            )
            if not (retry_round or self.waiting):
                return False
        if retry_round and not self._resolve(Action.ACCEPT, Reason.POLICY, "elicitation/complete", ""):
            return False
        with self._lock:
            if not self.waiting:  # a done callback ended it already
                return False
            self._completed = True
        self._end(suffix=note)
        return True

    @property
    def can_ask_again(self) -> bool:
        """Whether `ask_again` would work: consent was given and the card is still shown."""
        return self.waiting

    def ask_again(self, message: str | None = None) -> None:
        """Start a new pending round on this card, after consent: "I've finished — try again".

        2026-07-28: the server asks for the same URL again in the next round. 2025-11-25, -32042: call it
        right after consent so the person can say when they have finished (the call is then retried once);
        a completion notification answers the round too (see `complete`). The card offers "I've finished —
        try again" (accept), Decline and Cancel, with the link still there. `wait()` and
        `add_done_callback` then apply to the new round.

        Args:
            message: The server's new message, when it changed.

        Raises:
            FormStateError: The card is not waiting after consent (build a new card instead).
        """
        with self._lock:
            if not self.waiting:
                state = "no longer shown" if self._state is FormState.ACCEPTED else self._state.value
                raise FormStateError(f"ask_again needs a card waiting after consent; this one is {state}")
            self._round += 1
            self._state = FormState.PENDING
            self._outcome = None
            self._result = None
            self._again, self._open_on = True, True
        where = f"on {visible(self.check.host)} (it opened in a new tab)" if self._opened else "(link above)"
        with self.hold_sync():  # one message for the whole new round
            if message is not None and message != self.message:
                self.message = message
                self.card = {**self.card, "message": shown(message)}
            self.status = shown(
                f"When you have finished on the page {where}, click “I've finished — try again”."
            )
            self.buttons = self._button_row()

    # -- the page's messages ---------------------------------------------------------------------------------
    def _receive(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """One message from a view: a button, a key, an opened page, or "ready" (tell it the URL)."""
        if not isinstance(content, dict):
            return
        if "press" in content:
            press = content["press"]
            if press == "done":
                self._done_clicked()
            elif press in _PRESSES:
                self._press_action(_PRESSES[press])
        elif "key" in content or "opened" in content:
            self._on_key(content)
        elif content.get("ready") is True:
            self._arm()

    # -- internals -------------------------------------------------------------------------------------------
    def _may_open(self) -> bool:
        return not self._again  # a later round's button only says the person has finished

    def _button_row(self) -> list[dict[str, Any]]:
        """Accept ("Open page", or "I've finished — try again" in a later round), Decline, Cancel."""
        host = visible(self.check.host)
        if self._again:
            accept = {
                "press": "accept",
                "label": "I've finished — try again",
                "tip": shown(f"Tell {self.server} you have finished on {host}"),
                "opens": False,  # it opens nothing any more
            }
        else:
            accept = {
                "press": "accept",
                "label": "Open page",
                "tip": shown(f"Agree, and open this page on {host} in a new tab"),
                "opens": True,
            }
        return [
            {**accept, "primary": True, "disabled": not self._open_on},
            {"press": "decline", "label": "Decline", "tip": "Tell the server no"},
            {"press": "cancel", "label": "Cancel", "tip": "Dismiss without answering"},
        ]

    def _done_clicked(self) -> None:
        if self.waiting:
            self._end()

    def _on_settled(self) -> None:
        assert self._outcome is not None
        self._outcomes.append(self._outcome)

    def _after_consent(self) -> None:
        self._show_waiting()

    def _after_refusal(self, *, leave_line: bool) -> None:
        self._end(leave_line=leave_line)

    def _show_waiting(self) -> None:
        """After consent: a waiting line (and the one live link, unless the page opened) and Done."""
        host = visible(self.check.host)
        done = {"press": "done", "label": "Done", "tip": "Hide this card (the server has its answer already)"}
        if self._opened:
            status = (
                f"The page on {host} opened in a new tab. Waiting for you to finish there: "
                f"{self.server} hears of it from the page. Done hides this card."
            )
        else:
            status = (
                f"Open the page with the link above and finish there: {self.server} hears of it from "
                "the page. Done hides this card."
            )
        with self.hold_sync():  # one message: the line, the link and Done together
            if not self._opened:
                self.link = {"href": self.url, "text": f"Open the page on {host} in a new tab ↗"}
            self.status = shown(status)
            self.buttons = [done]

    def _end(self, *, leave_line: bool = True, suffix: str = "") -> None:
        """Down to one line (who asked, the host, how it ended); the rest of the state goes."""
        self._ended = True
        text = ""
        if leave_line:
            assert self._outcome is not None
            text = f"{self._header} to {self._where()}: {self._outcome.describe()}"
            if suffix:
                text = f"{text}; {suffix}"
        if self.comm is None:
            return
        with self.hold_sync():
            self.closing_line = shown(text)
            self.card = {"kind": "url"}  # what it is, and no server text any more
            self.buttons = []
            self.status = ""
            self.link = {}

    def close(self) -> None:
        """Close the card's model (a pending round is cancelled first)."""
        super().close()
        self._ended = True

    def _where(self) -> str:
        host = visible(self.check.host)
        return f"open a page on {host}" if host else "open a page"
