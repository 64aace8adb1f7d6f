"""The kernel room: the only code that knows ipykernel, comm, zmq, IPython internals and signals.

It builds on the core only. Widgets and the client wait, post and display through it.
"""
