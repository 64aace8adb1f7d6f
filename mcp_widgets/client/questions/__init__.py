"""A server's questions in the client: intake, a card presented and who answers it, URL mode, 2026-07-28
rounds that expire, how many a call may ask, and the list of open questions. See docs/architecture.md (the
path of one elicitation).
"""
