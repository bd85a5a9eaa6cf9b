"""The kit's version, in a module of its own: the wire client and the report read it without importing
the package face (which would be an arrow back up); pyproject.toml's ``version`` must match it."""

__version__ = "0.1.0"
