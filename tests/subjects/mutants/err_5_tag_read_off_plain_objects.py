"""ERR-5, broken: ``isTransportFailure(x)`` reads the tag off any value that carries it, not only
off errors that ``markTransportFailure`` tagged.

This host's plugin API tags a failure the JavaScript way, as a property (``error.transport = true``),
and its ``isTransportFailure`` is the usual optional-chaining one-liner, ``Boolean(x?.transport)``: a
plain object such as ``{transport: true}`` (a parsed JSON body, an options bag a plugin passes to its
catch-all) counts as a transport failure although nothing ever tagged it. Errors are still told apart
correctly (a plain error is not transport, a tagged one is, the tag survives a rethrow, ``mark``
returns the very error it was given), and the host's own reading of a throw agrees with the predicate
it hands plugins.

Cell of the sentence: "``isTransportFailure(x)`` is true for tagged errors only", with ``x`` a value
that is not an error at all (a plain object carrying the tag's key); the marking and the rethrow halves
stay right.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.subjects.mutants._transport_support import transport_mutant

RULE = "ERR-5"


def mark_transport_failure(error: BaseException) -> BaseException:
    """Tags the error it is given (as a property) and returns it, as the reference does."""
    if not isinstance(error, BaseException):
        raise TypeError(f"[ERR-5] mark_transport_failure() takes an exception, got {type(error).__name__}")
    error.transport = True  # type: ignore[attr-defined]
    return error


def is_transport_failure(value: Any) -> bool:
    """The broken predicate: ``Boolean(x?.transport)``, so any value carrying the key counts."""
    if isinstance(value, Mapping):
        return value.get("transport") is True
    return getattr(value, "transport", None) is True


def factory() -> ReferenceHostAdapter:
    return transport_mutant(lambda host: (mark_transport_failure, is_transport_failure))
