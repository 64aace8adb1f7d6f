"""SignInCard: an OAuth sign-in as a consent card (sign in on the authorization server's page, or cancel).

Before the card is drawn the SDK has fetched only public metadata (the server's protected resource metadata
and the authorization server's metadata) and, for an authorization server that needs dynamic registration,
registered this notebook as a client (that sends only our client metadata, never anything of the person's;
the full address below needs the client id it returns). Nothing is opened before the person consents: the
authorization address is plain text (Labels), with the authorization server's host on a line of its own and
the URL card's warnings (Punycode, bidi, credentials, port). "Sign in" consents and opens the address in a
new tab in the same click (the shared keyboard helper's view, keys.js, as for a URL card); where the helper
does not run, the card then shows the one live link it has.

After consent the card waits for the browser: the loopback listener gets the redirect, or the person pastes
the address the browser ended on (a password-type field, for JupyterLab on another machine: the loopback is
then out of the browser's reach). The field is cleared and its widget closed on submit. The client ends the
card with `signed_in()` or `failed(why)`: one plain line is left. Its model state never holds a code or
token; the address it shows carries only the `state` and the PKCE challenge, which are not secrets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import ipywidgets as w

from ..core.outcome import Action, Outcome, Reason
from ..core.signin_addresses import (
    AuthorizationDenied,
    Redirect,
    RedirectRefused,
    read_authorization,
    read_redirect,
)
from ..core.urls import visible
from ._keys import KeyRoute, shared_catcher
from ._kit import OPEN_CLASS, Kit, asker
from ._link_card import LinkCardWidget

__all__ = ["SignInCard"]


class SignInCard(LinkCardWidget):
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
        self._kit = kit = Kit()
        self._route: KeyRoute | None = None
        try:
            children = self._build() if self.check.allowed else ()
            route = self._route
            classes = ["mcp-widgets-url", "mcp-widgets-signin"] + ([route.token] if route else [])
            ids: dict[str, str] = {} if route is None else {"model_id": route.model_id}
            super().__init__(
                children=children, layout=kit.layout(), _view_count=0, _dom_classes=tuple(classes), **ids
            )
            if route is not None:
                route.listen(self)
        except BaseException:
            kit.close()
            if self._route is not None:
                self._route.close()
            raise
        if not self.check.allowed:
            note = (self.check.refusal or "refused").rstrip(".")
            self._resolve(Action.DECLINE, Reason.REFUSED_URL, None, f"the authorization address: {note}")

    def _build(self) -> tuple[w.Widget, ...]:
        kit, check, label = self._kit, self.check, self._kit.wrapped_label
        self._header = f"Sign-in requested by {asker(self.server, self.declared_name)}"
        host = visible(check.host)
        if check.host_unicode:
            host += f"  (reads as “{visible(check.host_unicode)}”)"
        if check.host_ascii:
            host += f"  (the browser goes to “{check.host_ascii}”)"
        scopes = ", ".join(visible(s) for s in self.scopes) if self.scopes else "none named"
        self._top: list[w.Widget] = [
            label(self._header, bold=True),
            label(self.message),
            label(f"You sign in on: {host}", bold=True),
            label(f"Only that site sees what you type there; it gives {self.server} access to: {scopes}"),
            label(f"Full address: {check.display}"),
            *(label(f"⚠ Warning: {text}") for text in check.warnings),
        ]
        self._signin = kit.make(
            w.Button,
            description="Sign in",
            button_style="primary",
            icon="external-link",
            tooltip=f"Agree, and open the sign-in page on {visible(check.host)} in a new tab",
            _dom_classes=(OPEN_CLASS,),
        )
        self._cancel = kit.make(w.Button, description="Cancel", tooltip="Do not sign in")
        self._signin.on_click(lambda _b: self._clicked(Action.ACCEPT))
        self._cancel.on_click(lambda _b: self._cancel_clicked())
        self._button_row = kit.make(w.HBox, children=(self._signin, self._cancel))
        self._status: w.Label | None = None
        self._note: w.Label | None = None
        self._paste: w.Password | None = None
        self._paste_button: w.Button | None = None
        self._keys = shared_catcher()
        self._route = KeyRoute(self._on_key, self._arm)
        return (*self._top, self._button_row, self._keys)

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
        return self._press(self._signin if self.check.allowed else None)

    def decline(self) -> bool:
        """Refuse to sign in (handlers and headless policies; the person has Cancel)."""
        reason, by = self._acting
        return self._resolve(Action.DECLINE, reason, by, "")

    def cancel(self) -> bool:
        """Click Cancel: before consent, or while the card waits for the browser."""
        if self.waiting:
            self._cancel_clicked()
            return self.signin_state == "cancelled"
        return self._press(self._cancel if self.check.allowed else None)

    def paste(self, address: str) -> bool:
        """Give the address the browser ended on (when the loopback is out of the browser's reach).

        The address must be this sign-in's redirect with its `state`; else the card says why (quoting none
        of it) and keeps waiting. Returns whether it was taken.
        """
        if not self.waiting:
            return False
        try:
            redirect = read_redirect(address, redirect_uri=self.redirect_uri, state=self._auth.state)
        except AuthorizationDenied as exc:
            if self.on_denied is not None:
                self.on_denied(str(exc))
            return True  # taken: the sign-in is over
        except RedirectRefused as exc:
            self.refused(str(exc))
            return False
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
        if self._route is not None:
            self._route.close()

    # -- internals -----------------------------------------------------------------------------------------
    def _by(self) -> tuple[Reason, str | None]:
        outcome = self.outcome
        return (outcome.reason, outcome.by) if outcome is not None else (Reason.PERSON, None)

    def _buttons(self) -> dict[Action, w.Button]:
        if not self.check.allowed:
            return {}
        return {Action.ACCEPT: self._signin, Action.CANCEL: self._cancel}

    @property
    def authorization_url(self) -> str:
        """The full authorization address: `url`, under the name the SDK gives it."""
        return self.url

    def _open_button(self) -> w.Button:
        return self._signin

    def _cancel_clicked(self) -> None:
        if self.waiting:
            reason, by = self._acting
            self.finish(Action.CANCEL, reason=reason, by=by, note="cancelled while waiting for the browser")
            return
        self._clicked(Action.CANCEL)

    def _after_consent(self) -> None:
        self.signin_state = "waiting"
        self._show_waiting()

    def _after_refusal(self, *, leave_line: bool) -> None:
        assert self._outcome is not None
        self._conclude("cancelled", self._outcome, leave_line=leave_line)

    def _show_waiting(self) -> None:
        host = visible(self.check.host)
        kit = self._kit
        self._status = self._kit.wrapped_label(
            f"Waiting for you to sign in on {host}"
            + (" in the new tab." if self._opened else " (use the link above).")
            + " If the browser ends on an address that does not load (JupyterLab on another machine),"
            " paste that address here:"
        )
        self._row = row = kit.make(w.HBox, children=(self._cancel,))
        self._offer_paste()
        link: tuple[w.Widget, ...] = ()
        if not self._opened:
            anchor = self._link_html(f"Open the sign-in page on {host} in a new tab")
            link = (kit.make(w.HTML, value=anchor),)
        self._waiting_parts = (*self._top, *link, self._status, row)
        self.children = (*self._waiting_parts, self._keys)

    def _offer_paste(self) -> None:
        """A new, empty field for the address (and its button), first in the row."""
        kit = self._kit
        # The value reaches the kernel only on Enter or when the field loses focus (not per keystroke), and is
        # taken, cleared and the field closed at once: no saved widget state keeps the address.
        field = kit.make(w.Password, placeholder="the address the browser ended on", continuous_update=False)
        field.observe(lambda change: self._submit() if change["new"] else None, "value")
        button = kit.make(w.Button, description="Submit address")
        button.on_click(lambda _b: self._submit())
        self._paste, self._paste_button = field, button
        self._row.children = (field, button, self._cancel)

    def _submit(self) -> None:
        field, button = self._paste, self._paste_button
        if field is None or not field.value:
            return  # the button without an address (the field's value comes as it loses focus)
        address = field.value
        # Cleared and closed at once: a notebook saved after this keeps nothing of the address.
        field.value = ""
        self._paste = self._paste_button = None
        self._row.children = (self._cancel,)
        field.close()
        if button is not None:
            button.close()
        if not self.paste(address) and self.waiting:
            self._offer_paste()  # refused (the card says why): another try

    def _show_note(self, text: str) -> None:
        if self._ended or not self.check.allowed:
            return
        if self._note is None:
            self._note = self._kit.wrapped_label(text)
            self._waiting_parts = (*self._waiting_parts, self._note)
            self.children = (*self._waiting_parts, self._keys)
        else:
            self._note.value = self._note.tooltip = text

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
        self._ended = True
        if self._route is not None:
            self._route.close()
        kit = self._kit
        if not leave_line or not hasattr(self, "_header"):
            self.children = ()
            kit.close()
            return
        line = self._kit.wrapped_label(self.summary)
        self.children = (line,)
        kit.close(keep=(line,))
