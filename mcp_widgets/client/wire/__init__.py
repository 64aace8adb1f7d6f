"""`srv.wire` and `mw.wire()`: a connection's messages captured as they pass, redacted when kept.

`wire.Wire` is what a person reads; `capture.WireCapture` (held by the connection) sees the messages and
keeps them; `taps` sees through a transport's streams or an in-process client's dispatcher. See
docs/wire.md and docs/architecture.md.
"""

from __future__ import annotations

from .capture import WireCapture
from .wire import Wire, Wires

__all__ = ["Wire", "WireCapture", "Wires"]
