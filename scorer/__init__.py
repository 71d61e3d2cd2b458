"""Pure lifecycle math (paper §4, Eq. 2): no I/O, no clients, no logging setup.

Imports only the standard library, numpy and `schemas`.
"""
