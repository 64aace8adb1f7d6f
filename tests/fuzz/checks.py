"""What every fuzz example asserts, and the settings that bound the run.

CI (the default): derandomized, a bounded number of examples, so the whole fuzz run takes under 3 minutes
on a 2-core machine. `MCP_WIDGETS_FUZZ=long` runs many more, randomized (a local soak).
"""

from __future__ import annotations

import base64
import concurrent.futures
import json
import logging
import os
import threading
import unicodedata
import warnings
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import ipywidgets as w
from hypothesis import HealthCheck, Phase, settings

from mcp_widgets import kernel
from mcp_widgets.core.history import default_history
from tests.inprocess.client.test_secrets import everything_in, leaks

LONG = os.environ.get("MCP_WIDGETS_FUZZ") == "long"

BOUND = 30.0
"""Seconds within which every call must end (each request's own timeout is far below: `TIMEOUT`)."""
TIMEOUT = 8.0
CONNECT_TIMEOUT = 60.0
"""Seconds a connection may take to start (a subprocess on a loaded machine); requests then get `TIMEOUT`."""


def fuzz_settings(ci: int, long: int = 0) -> settings:
    """`ci` examples, derandomized; `long` (default 20×) randomized examples under MCP_WIDGETS_FUZZ=long."""
    return settings(
        max_examples=(long or 20 * ci) if LONG else ci,
        derandomize=not LONG,
        deadline=None,  # a call's time is bounded by BOUND, asserted by the test itself
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
        # No shrinking in CI: a failure is reported as found (its blob reproduces it), the run's reruns take
        # over. Shrinking a connect that timed out under load took CI over five minutes a try (2026-12-07).
        phases=list(Phase) if LONG else [Phase.explicit, Phase.reuse, Phase.generate],
    )


class Records(logging.Handler):
    """Every log record while installed, DEBUG included, formatted with its traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("mcp_widgets"):
            self.texts.append(self.format(record))


@contextmanager
def recording() -> Iterator[Records]:
    handler = Records()
    logger = logging.getLogger("mcp_widgets")
    old = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


SHARED = ("Layout", "Style")
"""Models made once per process and shared by every stock control (`widgets/_kit.py`)."""


def live_models() -> dict[str, str]:
    """Widget models by type, but for the process-wide shared ones (they hold no user data)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # `Widget.widgets`: the one registry there is
        models = list(w.Widget.widgets.items())
    return {mid: type(m).__name__ for mid, m in models if not type(m).__name__.endswith(SHARED)}


def left_alive(before: dict[str, str]) -> dict[str, str]:
    """The models made since `before` that are still open, once what the client posted has run.

    Without a kernel, what the client thread posts to the main thread (closing a withdrawn question's form)
    runs only while a thread waits on the client (and at `srv.close()`): wait a moment first, as any next
    call would.
    """
    kernel.wait_sync(Later(0.1).future)
    return {mid: _described(mid, kind) for mid, kind in live_models().items() if mid not in before}


def _described(mid: str, kind: str) -> str:
    """ "Label 'text…'", "VBox [Label]": enough to tell which part of the client made a model left alive."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model = w.Widget.widgets.get(mid)
    value = getattr(model, "value", None)
    if isinstance(value, str):
        return f"{kind} {value[:80]!r}"
    children = getattr(model, "children", None)
    if children is not None:
        inner = [
            _described(c.model_id, type(c).__name__) if c.comm is not None else f"{type(c).__name__} (closed)"
            for c in children
        ]
        return f"{kind} [{', '.join(inner)}]"
    return kind


class Later:
    """Awaitable by a handler: the client drives handlers itself (no event loop), waiting on futures."""

    def __init__(self, seconds: float) -> None:
        self.future: concurrent.futures.Future[None] = concurrent.futures.Future()
        threading.Timer(seconds, self.future.set_result, (None,)).start()

    def __await__(self) -> Generator[Any, None, None]:
        yield self.future


@dataclass
class Typist:
    """A handler acting as the person: types `canary` into every plain text field, `number` into integers.

    It waits `delay` seconds first (so a server can withdraw the question, or the call be cancelled, before
    the answer), then accepts; a form that refuses the answer (a rule the canary breaks) is declined. A URL
    card gets `url_action`: "accept" (consent; a refused URL cannot be, then it declines), "decline", or
    "leave" (the server's completion, its withdrawal or the call's end must close it).
    """

    canary: str
    number: int
    delay: float = 0.0
    url_action: str = "decline"
    typed: list[Any] = field(default_factory=list)
    cards: list[Any] = field(default_factory=list)
    __name__: str = "typist"

    async def __call__(self, card: Any) -> None:
        self.cards.append(card)
        if self.delay:
            await Later(self.delay)
        if card.outcome is not None:
            return
        if card.kind != "form":
            if self.url_action == "leave":
                return
            if self.url_action != "accept" or not card.accept():
                card.decline()
            return
        values: dict[str, Any] = {}
        for spec in card.spec.fields:
            if spec.kind == "text":
                values[spec.name] = self.canary
            elif spec.kind == "integer":
                values[spec.name] = self.number
        try:
            card.fill(**values)
        except Exception:  # a resolved form (withdrawn meanwhile): nothing to type into
            return
        if values and card.outcome is None:
            self.typed += list(values.values())
        if not card.accept():
            card.decline()

    @property
    def values(self) -> tuple[Any, ...]:
        return (self.canary, self.number) if self.typed else ()


def scope_text(
    *, error: BaseException | None, logs: Records, closing: str, server: str, reprs: list[str]
) -> dict[str, str]:
    """Everything in "the scope" of #18 that the example produced, by where it came from."""
    return {
        "error": everything_in(error) if error is not None else "",
        "logs": "\n".join(logs.texts),
        "closing text": closing,
        "history": json.dumps(default_history().records(server), default=str, ensure_ascii=False),
        "reprs": "\n".join(reprs),
    }


def claimed_spellings(value: Any) -> set[str]:
    """The spellings of `value` docs/privacy.md says are redacted beyond `leaks`' own (#33):
    HTML entities for every character, URL-encoded twice, decomposed, fullwidth, a zero-width space inside,
    and base64 for values of 4 characters or more."""
    text = str(value)
    forms = {
        "".join(f"&#{ord(c)};" for c in text),
        quote(quote(text, safe=""), safe=""),
        unicodedata.normalize("NFD", text),
        "".join(chr(ord(c) + 0xFEE0) if 0x21 <= ord(c) <= 0x7E else c for c in text),
        text[:1] + "\u200b" + text[1:],
    }
    if len(text) >= 4:
        forms |= {base64.b64encode(text.encode()).decode(), base64.urlsafe_b64encode(text.encode()).decode()}
        forms |= {form.rstrip("=") for form in forms if form.endswith("=")}
    return forms


def found_leaks(scope: dict[str, str], values: tuple[Any, ...]) -> dict[str, list[str]]:
    """Where a typed value shows, in any spelling the redaction claims to cover."""
    if not values:
        return {}
    found = {
        where: sorted({*leaks(text, values), *(f for v in values for f in claimed_spellings(v) if f in text)})
        for where, text in scope.items()
    }
    return {where: forms for where, forms in found.items() if forms}


def closing_text(out: w.Output) -> str:
    return "\n".join(str(v) for entry in out.outputs for v in entry.get("data", {}).values())
