"""The client room: the MCP SDK session, calls, answering, URL flow, call displays and listings.

It builds on every other room: core, kernel and widgets.
"""
