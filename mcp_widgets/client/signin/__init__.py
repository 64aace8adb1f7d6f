"""Signing in (OAuth) from the cell: the SDK's provider with a person in the loop, the loopback
redirect, the sign-in card and where tokens live. See docs/signing-in.md and docs/architecture.md.
"""
