"""`PendingItem`, a row of `mw.pending()`: its question's card is `card` (docs/architecture.md, Glossary);
the old name `view` still reads it, with a `DeprecationWarning`."""

from __future__ import annotations

import pytest

from mcp_widgets.widgets import PendingItem


def test_card_and_its_deprecated_alias() -> None:
    card = object()
    item = PendingItem(id=1, server="s", message="m", kind="form", waited=0.0, left=None, card=card)
    assert item.card is card
    with pytest.warns(DeprecationWarning, match="PendingItem.card"):
        assert item.view is card
