"""`srv.wire` and `mw.wire()`: a connection's messages captured as they pass, redacted when kept.
See docs/wire.md and docs/architecture.md.
"""
