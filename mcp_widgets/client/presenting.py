"""The one way every card is presented (a form, a URL card, a sign-in card): build, wire, record, place,
answer, in that order, here and nowhere else.

1. **build** the card (with SIGINT held back: building opens a few dozen comms, and an interrupt landing
   halfway would leave a card nobody holds; it is taken just after, when the card can end "interrupted");
2. **prepare** it, before anyone can see it (a sign-in card learns where its paste and Cancel go);
3. **deliver**: its first done callback sends the answer where it is awaited (the server, the sign-in);
4. **record**: its history entry, which the card finishes in its second done callback, so the history
   notes an answer only once it went out;
5. **place** it where the call is and let the handler, else the person, else a headless policy answer it
   (`answering.answer`). A card that must not be asked (a refused address, declined as it was built) is
   only placed: its closing line says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .. import kernel
from ..core.card import Card, Handler
from ..core.outcome import Reason
from ..core.requests import PendingRequest
from .answering import CallStyle, answer

__all__ = ["present"]

C = TypeVar("C", bound=Card)


def present(
    build: Callable[[], C | None],
    *,
    deliver: Callable[[C], object],
    record: Callable[[C], object],
    place: Callable[[Card], None] | None,
    tell: Callable[[str], None] | None,
    chosen: tuple[Handler, Reason, str] | None,
    server: str,
    style: CallStyle | None,
    request: PendingRequest | None = None,
    prepare: Callable[[C], object] | None = None,
    ask: Callable[[C], bool] = lambda card: True,
) -> C | None:
    """Present a card (see the module's docstring); returns it, or None when building it failed (`build`
    has answered the request then).

    Args:
        place: Shows the card where the call is (None: it is shown already, a URL card's next round).
        tell: Shows a line of text there (a handler's failure).
        chosen: What `pick_handler` chose (None: the person, else a headless policy).
        request: The request the card answers (its generation says whether an interrupt drops the call).
        ask: Whether anyone is asked (False: the card is only placed).
    """
    with kernel.interrupt_deferred() as deferred:
        card = build()
        if card is not None:
            if prepare is not None:
                prepare(card)
            card.add_done_callback(deliver)
            record(card)
    if card is None or not ask(card):
        if card is not None and place is not None:
            place(card)
        deferred.deliver()
        return card
    try:
        answer(
            card,
            chosen,
            server=server,
            style=style,
            show=place,
            tell=tell,
            request=request,
            interrupted=bool(deferred),
        )
    except KeyboardInterrupt:
        if not deferred:
            raise
        # The card ended as interrupted; the interrupt itself goes where it was headed. Raised from an
        # awaiting cell's event loop, a KeyboardInterrupt would end the kernel, not the cell.
        deferred.deliver()
    return card
