"""markTransportFailure / isTransportFailure (ERR-5), the Python side of
``elowen-plugin-shared/transport``.

The tag is an attribute on the exception object itself, so it survives a bare ``raise`` and a
``raise ... from`` of the same object, and is never true for anything that was not tagged.
"""

from __future__ import annotations

from typing import Any, TypeVar

_TAG = "__transport_failure__"

E = TypeVar("E", bound=BaseException)


def mark_transport_failure(error: E) -> E:
    """Tag ``error`` as a transport or host fault and return the same object."""
    if not isinstance(error, BaseException):
        raise TypeError(
            f"[ERR-5] mark_transport_failure() takes an exception, got {type(error).__name__}; "
            "wrap the failure in an Exception first"
        )
    setattr(error, _TAG, True)
    return error


def is_transport_failure(value: Any) -> bool:
    """True only for an exception that :func:`mark_transport_failure` tagged."""
    return isinstance(value, BaseException) and getattr(value, _TAG, False) is True
