"""Errors the gatehouse commands report as one line (the console client has its own)."""


class GatehouseError(Exception):
    """A failure the user can act on; `str()` is the one line shown."""
