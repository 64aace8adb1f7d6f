"""The views' rows: what a person reads of the groups, as the console's text (`wire_text`) or the live
view's JSON (`view_state`), bounded (the newest groups and rows; the rest counted) and literal (controls
and invisible characters written as escapes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..text import byte_size, clip_line, plural, shown
from ._groups import WireGroup

__all__ = ["GROUPS_SHOWN", "ROWS_SHOWN", "view_state", "wire_text"]


def wire_text(groups: Sequence[WireGroup], *, total: int, kept: int, name: str = "", limit: int = 40) -> str:
    """The wire as text (the console's view): a line per group, its rows under it. `kept` messages are
    kept of `total` seen."""
    head = f"wire of {name!r}: " if name else "wire: "
    head += f"{plural(kept, 'message')} kept"
    if total > kept:
        head += f" (the last {kept:,} of {total:,})"
    lines = [head]
    for group in groups[-limit:]:
        outcome = f", {group.outcome}" if group.outcome else ""
        lines.append(
            f"{group.start:9.3f}s  {shown(group.label, multiline=False)}"
            f" ({plural(len(group.messages), 'message')}, {group.took:.3f} s{outcome})"
        )
        for row in group.rows():
            first = row.messages[0]
            arrow = "→" if first.direction == "out" else "←"
            took = f"  {first.took * 1000:.0f} ms" if first.took is not None else ""
            size = f"  {byte_size(sum(m.size for m in row.messages))}" if first.size else ""
            lines.append(f"  {row.at:9.3f}s {arrow} {clip_line(row.text, 120)}{size}{took}")
    if len(groups) > limit:
        lines.insert(1, f"(the last {limit} of {len(groups)} groups)")
    return "\n".join(lines)


GROUPS_SHOWN = 100
"""Groups a live view shows (the newest); older ones are counted."""
ROWS_SHOWN = 100
"""Rows of a group a live view shows (the newest); older ones are counted."""


def view_state(groups: Sequence[WireGroup], *, total: int, kept: int, keep: int) -> dict[str, Any]:
    """What a live view shows, as JSON: the newest groups with their newest rows, every text literal
    (controls and invisible characters written as escapes). A row's message is fetched when opened."""
    summary = f"{plural(kept, 'message')} kept"
    if total > kept:
        summary += f" (the newest {kept:,} of {total:,}; at most {keep:,})"
    shown_groups = []
    for group in groups[-GROUPS_SHOWN:]:
        rows = group.rows()
        shown_rows = []
        for row in rows[-ROWS_SHOWN:]:
            first = row.messages[0]
            shown_rows.append(
                {
                    "at": round(row.at, 3),
                    "dir": "http" if first.kind == "http" else first.direction,
                    "text": clip_line(row.text, 160),
                    "size": sum(m.size for m in row.messages),
                    "took": None if first.took is None else round(first.took, 4),
                    "error": first.kind == "error" or (first.status or 0) >= 400,
                    "seqs": [m.seq for m in row.messages][-20:],
                }
            )
        outcome = group.outcome
        shown_groups.append(
            {
                "key": group.key,
                "label": clip_line(group.label, 120),
                "kind": group.kind,
                "start": round(group.start, 3),
                "took": round(group.took, 4),
                "count": len(group.messages),
                "size": group.size,
                "outcome": clip_line(outcome, 160),
                "error": any(m.kind == "error" for m in group.messages),
                "rows": shown_rows,
                "earlier": max(0, len(rows) - ROWS_SHOWN),
            }
        )
    return {
        "summary": summary,
        "groups": shown_groups,
        "earlier": max(0, len(groups) - GROUPS_SHOWN),
    }
