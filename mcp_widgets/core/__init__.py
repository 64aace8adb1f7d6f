"""The pure core: schema rules, validation, outcomes, URL safety, tool schemas, the history store.

Nothing here imports a widget, kernel or SDK module (ipywidgets, ipykernel, IPython, comm, zmq, traitlets,
mcp, mcp_types, anyio), so it loads fast and runs anywhere. Every other room builds on it.
"""
