"""UrlCard: a URL-mode elicitation as a consent card (open a page in the browser, or decline / cancel).

Nothing is fetched or opened before the person consents. Until then the URL is plain text (Labels), with its
host on a line of its own. "Open page" both consents and opens the page, in one click: a browser opens a new
tab only inside the click itself, so the shared keyboard helper's view (`_keys`, keys.js) does it, with
`window.open(url, "_blank", "noopener,noreferrer")`, for the URL the kernel checked and sent it (`open_url`,
withdrawn with null once the round ended), and tells the kernel (`opened`), which takes that as the consent.
Where the helper does not run (no front-end code, a Python click, a handler), the click only consents, and
the card then shows the one live link it ever has: an anchor to the URL (escaped) for a new tab, with
`noopener noreferrer`.

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

from typing import ClassVar

import ipywidgets as w

from ..core.exceptions import FormStateError
from ..core.outcome import Action, Outcome, Reason
from ..core.urls import UrlCheck, inspect_url, visible
from ._answerable import FormState
from ._keys import KeyRoute, shared_catcher
from ._kit import OPEN_CLASS, Kit, asker, click
from ._link_card import LinkCardWidget

__all__ = ["UrlCard"]


class UrlCard(LinkCardWidget):
    """Asks the person whether to open a server's web page; shown inline where the request was made.

    It names the server that asks, shows the message and the full URL as plain text, the host on its own
    line (with its decoded or ASCII form when they differ), and a warning line for each suspicious trait.
    A URL that `inspect_url` refuses gives a card that is already declined (Reason.REFUSED_URL, its note
    says why): no buttons, no handler needed, `wait()` returns at once.

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
        self._opened = False  # the helper's view opened the page in the click that consented
        self.server = server
        self.declared_name = declared_name
        self.message = message
        self.url = url
        self.elicitation_id = elicitation_id
        self.check: UrlCheck = inspect_url(url)
        """What `inspect_url` found: allowed or why not, the host, warnings, the redacted form."""

        self._header = f"Request from {asker(server, declared_name)}"
        self._kit = kit = Kit()
        self._route: KeyRoute | None = None
        try:
            children = self._build() if self.check.allowed else ()
            route = self._route
            classes = ("mcp-widgets-url",) if route is None else ("mcp-widgets-url", route.token)
            # The helper's views find the card's model by its id.
            ids: dict[str, str] = {} if route is None else {"model_id": route.model_id}
            super().__init__(
                children=children, layout=kit.layout(), _view_count=0, _dom_classes=classes, **ids
            )
            if route is not None:
                route.listen(self)
        except BaseException:
            kit.close()  # leave no half-built models behind
            if self._route is not None:
                self._route.close()
            raise
        if not self.check.allowed:
            note = (self.check.refusal or "refused").rstrip(".")
            self._resolve(Action.DECLINE, Reason.REFUSED_URL, None, note)

    def _build(self) -> tuple[w.Widget, ...]:
        kit, check = self._kit, self.check
        label = self._kit.wrapped_label
        self._top: list[w.Widget] = [label(self._header, bold=True)]
        self._message_label = label(self.message) if self.message else None
        if self._message_label is not None:
            self._top.append(self._message_label)
        host = visible(check.host)
        if check.host_unicode:
            host += f"  (reads as “{visible(check.host_unicode)}”)"
        if check.host_ascii:
            host += f"  (the browser goes to “{check.host_ascii}”)"
        self._top.append(label(f"Opens a page on: {host}", bold=True))
        self._top.append(label(f"Full address: {check.display}"))
        self._top += [label(f"⚠ Warning: {text}") for text in check.warnings]

        self._open = kit.make(
            w.Button,
            description="Open page",
            button_style="primary",
            icon="external-link",
            _dom_classes=(OPEN_CLASS,),
        )
        self._decline = kit.make(w.Button, description="Decline", icon="times", tooltip="Tell the server no")
        self._cancel = kit.make(w.Button, description="Cancel", tooltip="Dismiss without answering")
        for action, button in self._buttons().items():
            button.on_click(lambda _button, action=action: self._clicked(action))
        self._button_row = kit.make(w.HBox, children=(self._open, self._decline, self._cancel))
        self._set_open_button(again=False)
        # Built at consent: the one live link, the waiting line and Done.
        self._link: w.HTML | None = None
        self._status: w.Label | None = None
        self._done: w.Button | None = None
        # The keyboard helper is shared by every card and form (never closed by ours); our route gets its
        # messages.
        self._keys = shared_catcher()
        self._route = KeyRoute(self._on_key, self._arm)
        return (*self._top, self._button_row, self._keys)

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
        return self._press(self._buttons().get(Action.ACCEPT))

    def dismiss(self) -> bool:
        """Click Done while waiting: the card shrinks to its closing line, nothing is sent. Else False."""
        if not self.waiting:
            return False
        assert self._done is not None
        click(self._done)
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
        if message is not None and message != self.message:
            self.message = message
            if self._message_label is not None:
                self._message_label.value = self._message_label.tooltip = message
            else:
                self._message_label = self._kit.wrapped_label(message)
                self._top.insert(1, self._message_label)
        self._set_open_button(again=True)
        assert self._status is not None
        where = f"on {visible(self.check.host)} (it opened in a new tab)" if self._opened else "(link above)"
        self._status.value = self._status.tooltip = (
            f"When you have finished on the page {where}, click “I've finished — try again”."
        )
        link = () if self._link is None else (self._link,)
        self.children = (*self._top, *link, self._status, self._button_row, self._keys)

    def close(self) -> None:
        """Close every model the card still holds (a pending round is cancelled first)."""
        super().close()
        self._ended = True
        if self._route is not None:
            self._route.close()

    # -- internals -------------------------------------------------------------------------------------------
    def _buttons(self) -> dict[Action, w.Button]:
        if not self.check.allowed:
            return {}
        return {Action.ACCEPT: self._open, Action.DECLINE: self._decline, Action.CANCEL: self._cancel}

    def _done_clicked(self) -> None:
        if self.waiting:
            self._end()

    def _open_button(self) -> w.Button:
        return self._open

    def _may_open(self) -> bool:
        return self._round == 1  # a later round's button only says the person has finished

    def _set_open_button(self, *, again: bool) -> None:
        host = visible(self.check.host)
        if again:
            self._open.description = "I've finished — try again"
            self._open.tooltip = f"Tell {self.server} you have finished on {host}"
            self._open._dom_classes = ()  # it opens nothing any more
            self._open.icon, self._open.disabled = "check", False
        else:
            self._open.description = "Open page"
            self._open.tooltip = f"Agree, and open this page on {host} in a new tab"

    def _on_settled(self) -> None:
        assert self._outcome is not None
        self._outcomes.append(self._outcome)

    def _after_consent(self) -> None:
        self._show_waiting()

    def _after_refusal(self, *, leave_line: bool) -> None:
        self._end(leave_line=leave_line)

    def _show_waiting(self) -> None:
        """After consent: a waiting line (and the one live link, unless the page opened) and Done."""
        host_text = visible(self.check.host)
        if self._status is None or self._done is None:
            self._status = self._kit.wrapped_label("")
            tip = "Hide this card (the server has its answer already)"
            self._done = self._kit.make(w.Button, description="Done", tooltip=tip)
            self._done.on_click(lambda _button: self._done_clicked())
        if self._opened:
            self._status.value = self._status.tooltip = (
                f"The page on {host_text} opened in a new tab. Waiting for you to finish there: "
                f"{self.server} hears of it from the page. Done hides this card."
            )
            self.children = (*self._top, self._status, self._done, self._keys)
            return
        if self._link is None:
            anchor = self._link_html(f"Open the page on {host_text} in a new tab")
            self._link = self._kit.make(w.HTML, value=anchor)
        self._status.value = self._status.tooltip = (
            f"Open the page with the link above and finish there: {self.server} hears of it from the page. "
            "Done hides this card."
        )
        self.children = (*self._top, self._link, self._status, self._done, self._keys)

    def _end(self, *, leave_line: bool = True, suffix: str = "") -> None:
        """Replace the card by one Label (who asked, the host, how it ended) and close every other model."""
        self._ended = True
        if self._route is not None:
            self._route.close()  # the shared catcher stays open for the other cards and forms
        kit = self._kit
        if not leave_line:
            self.children = ()
            kit.close()
            return
        assert self._outcome is not None
        text = f"{self._header} to {self._where()}: {self._outcome.describe()}"
        if suffix:
            text = f"{text}; {suffix}"
        line = self._kit.wrapped_label(text)
        self.children = (line,)
        kit.close(keep=(line,))
        self._link = None

    def _where(self) -> str:
        host = visible(self.check.host)
        return f"open a page on {host}" if host else "open a page"
