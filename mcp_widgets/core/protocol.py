"""Protocol versions: which side of the 2026-07-28 change a connection is on."""

from __future__ import annotations

__all__ = ["LEGACY", "MODERN", "is_modern"]

LEGACY = "2025-11-25"
"""The newest version where a server asks mid-call (`elicitation/create`) and can withdraw a question."""
MODERN = "2026-07-28"
"""The first version with input-required rounds: a server cannot send requests mid-call."""


def is_modern(version: str | None) -> bool:
    """True for `MODERN` and later (ISO dates compare in order as text); False for None (not negotiated)."""
    return (version or "") >= MODERN
