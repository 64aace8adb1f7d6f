"""SignInCard: an OAuth sign-in as a consent card (sign in on the authorization server's page, or cancel).

One widget model (an anywidget), drawn by the question card's renderer (`assets/question.js`, its link block,
as a URL card is). Before the card is drawn the SDK has fetched only public metadata (the server's protected
resource metadata and the authorization server's metadata) and, for an authorization server that needs
dynamic registration, registered this notebook as a client (that sends only our client metadata, never
anything of the person's; the full address below needs the client id it returns). Nothing is opened before
the person consents: the authorization address is plain text, with the authorization server's host on a line
of its own and the URL card's warnings (Punycode, bidi, credentials, port). "Sign in" consents and opens the
address in a new tab in the same click (keys.js, joined into the module, as for a URL card); where that does
not run, the card then shows the one live link it has.

After consent the card waits for the browser: the loopback listener gets the redirect, or the person pastes
the address the browser ended on (a password field, for JupyterLab on another machine: the loopback is then
out of the browser's reach). The page sends that address as one custom message on submit and clears the
field at once: it is never synced state, so no saved widget state keeps it. The client ends the card with
`signed_in()` or `failed(why)`: one plain line is left. Its model state never holds a code or token; the
address it shows carries only the `state` and the PKCE challenge, which are not secrets.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, ClassVar

import traitlets as t

from .. import kernel
from ..core.outcome import Action, Outcome, Reason
from ..core.signin_addresses import (
    AuthorizationDenied,
    Redirect,
    RedirectRefused,
    read_authorization,
    read_redirect,
)
from ..core.text import shown
from ..core.urls import visible
from ._kit import Kit, asker, known_keys
from ._link_card import LinkCardModel

__all__ = ["SignInCard"]

_LAYOUT = Kit()
_PASTE = {
    "placeholder": "the address the browser ended on",
    "submit": "Submit address",
}
"""The paste field the waiting card offers: its placeholder and its button (the value is never state)."""


class SignInCard(LinkCardModel):
    """Asks the person to sign in to a server's authorization server; shown in the calling cell.

    Through the card contract it resolves once, at consent (`outcome`, `add_done_callback`): Sign in, or
    Cancel / a decline. The sign-in itself ends later: `signin_state`, `final_outcome` and
    `add_final_callback` tell how (signed in, cancelled while waiting, failed).

    Args:
        authorization_url: The full authorization address (built by the SDK's provider).
        server: The name we know the MCP server by (who asks).
        declared_name: What the server calls itself, when known.
        message: A line for the person (default: who asks for what).
    """

    _NOUN = "sign-in card"
    _WHAT = "a sign-in card"
    kind: ClassVar[str] = "signin"

    _anywidget_id = t.Unicode("mcp_widgets.SignInCard", help="anywidget's name for this class.").tag(
        sync=True
    )
    note = t.Unicode("", help="While it waits: a refused redirect, or that the address was received.").tag(
        sync=True
    )
    paste_offer = t.Dict(
        help="While it waits: the paste field's placeholder and button (what is pasted comes as a message)."
    ).tag(sync=True)

    def __init__(
        self,
        authorization_url: str,
        *,
        server: str,
        declared_name: str | None = None,
        message: str = "",
    ) -> None:
        self._start()
        self._auth = read_authorization(authorization_url)
        self.server = server
        self.declared_name = declared_name
        self.url = authorization_url
        self.check = self._auth.check
        self.auth_host = self._auth.host
        self.scopes: tuple[str, ...] = self._auth.scopes
        self.redirect_uri = self._auth.redirect_uri
        self.message = message or f"{server} asks you to sign in before it can be used."
        self.signin_state = "pending"
        """ "pending", "waiting" (after consent), then "signed in", "failed" or "cancelled"."""
        self._opened = False
        self._ended = False
        self._final: Outcome | None = None
        self._final_callbacks: list[Callable[[SignInCard], object]] = []
        self.on_redirect: Callable[[Redirect], object] | None = None
        """Set by the client: takes a pasted redirect that passed the checks."""
        self.on_cancel: Callable[[], object] | None = None
        """Set by the client: the person cancelled while the card waited."""
        self.on_denied: Callable[[str], object] | None = None
        """Set by the client: a pasted redirect carried the authorization server's refusal."""
        self._open_on = True  # whether "Sign in" is enabled
        self._header = f"Sign-in requested by {asker(server, declared_name)}"
        if self.check.allowed:
            kernel.attach()  # so that every message reaches us even while a cell awaits this card
        model_id = uuid.uuid4().hex  # chosen here, so the card can name it (as a URL card's does)
        super().__init__(
            card={**self._card(), "id": model_id} if self.check.allowed else {"kind": "signin"},
            buttons=self._button_row() if self.check.allowed else [],
            _view_count=0,
            model_id=model_id,
            layout=_LAYOUT.layout(),  # the process's shared Layout: one model per card
            **known_keys(type(self)),
        )
        self.on_msg(self._receive)
        if not self.check.allowed:
            note = (self.check.refusal or "refused").rstrip(".")
            self._resolve(Action.DECLINE, Reason.REFUSED_URL, None, f"the authorization address: {note}")

    def _card(self) -> dict[str, Any]:
        """The card's text: server text made `shown` (control characters visible), never HTML."""
        check = self.check
        host = visible(check.host)
        if check.host_unicode:
            host += f"  (reads as “{visible(check.host_unicode)}”)"
        if check.host_ascii:
            host += f"  (the browser goes to “{check.host_ascii}”)"
        scopes = ", ".join(visible(s) for s in self.scopes) if self.scopes else "none named"
        return {
            "kind": "signin",
            "header": shown(self._header),
            "message": shown(self.message),
            "host": shown(f"You sign in on: {host}"),
            "detail": shown(
                f"Only that site sees what you type there; it gives {self.server} access to: {scopes}"
            ),
            "address": shown(f"Full address: {check.display}"),
            "warnings": [shown(f"⚠ Warning: {text}") for text in check.warnings],
        }

    def __repr__(self) -> str:
        return f"<SignInCard server={self.server!r} host={visible(self.auth_host)!r} {self.signin_state}>"

    # -- what it offers -----------------------------------------------------------------------------------
    @property
    def waiting(self) -> bool:
        """After consent, until the sign-in ends."""
        return self.signin_state == "waiting"

    @property
    def summary(self) -> str:
        """One line: where, for whom, and how it ended (or that it is pending)."""
        done = self._final.describe() if self._final is not None else self.signin_state
        return f"Sign-in on {visible(self.check.host)} for {asker(self.server, self.declared_name)}: {done}"

    @property
    def final_outcome(self) -> Outcome | None:
        """How the sign-in ended (signed in, cancelled, failed), or None until then."""
        return self._final

    def accept(self) -> bool:
        """Click "Sign in" (consent); False once answered or when the address was refused."""
        return self._press_action(Action.ACCEPT)

    def decline(self) -> bool:
        """Refuse to sign in (handlers and headless policies; the person has Cancel)."""
        reason, by = self._acting
        return self._resolve(Action.DECLINE, reason, by, "")

    def cancel(self) -> bool:
        """Click Cancel: before consent, or while the card waits for the browser."""
        if self.waiting:
            self._cancel_clicked()
            return self.signin_state == "cancelled"
        return self._press_action(Action.CANCEL)

    def paste(self, address: str) -> bool:
        """Give the address the browser ended on (when the loopback is out of the browser's reach).

        The address must be this sign-in's redirect with its `state`; else the card says why (quoting none
        of it) and keeps waiting. Returns whether it was taken (then the paste field goes).
        """
        if not self.waiting:
            return False
        try:
            redirect = read_redirect(address, redirect_uri=self.redirect_uri, state=self._auth.state)
        except AuthorizationDenied as exc:
            self._take_paste_field()
            if self.on_denied is not None:
                self.on_denied(str(exc))
            return True  # taken: the sign-in is over
        except RedirectRefused as exc:
            self.refused(str(exc))
            return False
        self._take_paste_field()
        self._show_note("Address received: finishing the sign-in…")
        if self.on_redirect is not None:
            self.on_redirect(redirect)
        return True

    def add_final_callback(self, fn: Callable[[SignInCard], object]) -> None:
        """Call `fn(card)` when the sign-in ends (at once if it has)."""
        if self._final is None:
            self._final_callbacks.append(fn)
        else:
            fn(self)

    # -- the client ends it --------------------------------------------------------------------------------
    def refused(self, why: str) -> None:
        """A redirect (loopback or pasted) was refused: say so, keep waiting."""
        if self.waiting:
            self._show_note(f"⚠ A sign-in response was refused: {why}. Still waiting for the right one.")

    def signed_in(self) -> None:
        self._conclude("signed in", Outcome(Action.ACCEPT, *self._by(), note="signed in"))

    def failed(self, why: str) -> None:
        self._conclude("failed", Outcome(Action.CANCEL, Reason.ERROR, note=why))

    def finish(
        self,
        action: Action | str,
        *,
        reason: Reason | str = Reason.HANDLER,
        by: str | None = None,
        note: str = "",
    ) -> bool:
        """End it without a click; while it waits for the browser, `cancel` ends the sign-in."""
        if self.waiting and Action(action) is Action.CANCEL:
            self._conclude("cancelled", Outcome(Action.CANCEL, Reason(reason), by, note))
            if self.on_cancel is not None:
                self.on_cancel()
            return True
        return super().finish(action, reason=reason, by=by, note=note)

    def close(self) -> None:
        if self.waiting:
            self.finish(Action.CANCEL, reason=Reason.HANDLER, note="the sign-in card was closed")
        super().close()
        self._ended = True

    # -- internals -----------------------------------------------------------------------------------------
    def _by(self) -> tuple[Reason, str | None]:
        outcome = self.outcome
        return (outcome.reason, outcome.by) if outcome is not None else (Reason.PERSON, None)

    @property
    def authorization_url(self) -> str:
        """The full authorization address: `url`, under the name the SDK gives it."""
        return self.url

    # -- the page's messages ---------------------------------------------------------------------------------
    def _receive(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """One message from a view: a button, a key, an opened page, a pasted address, or "ready"."""
        if not isinstance(content, dict):
            return
        if "press" in content:
            if content["press"] == "accept":
                self._press_action(Action.ACCEPT)
            elif content["press"] == "cancel":
                self._cancel_clicked()
        elif "paste" in content:
            address = content["paste"]
            # The page sent it once and cleared its field: it is never state, and it is kept nowhere here.
            if isinstance(address, str) and address:
                self.paste(address)
        elif "key" in content or "opened" in content:
            self._on_key(content)
        elif content.get("ready") is True:
            self._arm()

    def _button_row(self) -> list[dict[str, Any]]:
        """Sign in (consents and opens the page in the same click) and Cancel."""
        host = visible(self.check.host)
        return [
            {
                "press": "accept",
                "label": "Sign in",
                "tip": shown(f"Agree, and open the sign-in page on {host} in a new tab"),
                "opens": True,
                "primary": True,
                "disabled": not self._open_on,
            },
            {"press": "cancel", "label": "Cancel", "tip": "Do not sign in"},
        ]

    def _cancel_clicked(self) -> None:
        if self.waiting:
            reason, by = self._acting
            self.finish(Action.CANCEL, reason=reason, by=by, note="cancelled while waiting for the browser")
            return
        self._press_action(Action.CANCEL)

    def _after_consent(self) -> None:
        self.signin_state = "waiting"
        self._show_waiting()

    def _after_refusal(self, *, leave_line: bool) -> None:
        assert self._outcome is not None
        self._conclude("cancelled", self._outcome, leave_line=leave_line)

    def _show_waiting(self) -> None:
        """After consent: the waiting line, the paste field, Cancel and, unless the page opened, the link."""
        host = visible(self.check.host)
        status = (
            f"Waiting for you to sign in on {host}"
            + (" in the new tab." if self._opened else " (use the link above).")
            + " If the browser ends on an address that does not load (JupyterLab on another machine),"
            " paste that address here:"
        )
        cancel = {"press": "cancel", "label": "Cancel", "tip": "Stop waiting, and do not sign in"}
        with self.hold_sync():  # one message: the line, the link, the field and Cancel together
            if not self._opened:
                self.link = {"href": self.url, "text": f"Open the sign-in page on {host} in a new tab ↗"}
            self.status = shown(status)
            self.paste_offer = dict(_PASTE)
            self.buttons = [cancel]

    def _take_paste_field(self) -> None:
        """An address was taken: the field goes (a refused one keeps it, for another try)."""
        if not self._ended:
            self.paste_offer = {}

    def _show_note(self, text: str) -> None:
        if self._ended or not self.check.allowed:
            return
        self.note = shown(text)

    def _conclude(self, state: str, outcome: Outcome, *, leave_line: bool = True) -> None:
        with self._lock:
            if self._final is not None:
                return
            self._final = outcome
            self.signin_state = state
            callbacks, self._final_callbacks = self._final_callbacks, []
        self._end(outcome, leave_line=leave_line)
        for fn in callbacks:
            self._call(fn)

    def _end(self, outcome: Outcome, *, leave_line: bool) -> None:
        """Down to one line (where, for whom, how it ended); the rest of the state goes."""
        self._ended = True
        if self.comm is None:
            return
        with self.hold_sync():
            # A refused address was never shown: nothing but its kind (the client says why in a line).
            self.closing_line = shown(self.summary) if leave_line and self.check.allowed else ""
            self.card = {"kind": "signin"}  # what it is, and no server text any more
            self.buttons = []
            self.status = self.note = ""
            self.link = {}
            self.paste_offer = {}
