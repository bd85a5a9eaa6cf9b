"""ERR-5, broken: ``markTransportFailure(error)`` tags the error's class, not only the error it is
given, so every later error of that class is a transport failure too.

This host's transport helper classifies by type as a shortcut: once a plugin has marked one error of
a class (a socket error, say), it remembers the class, and ``isTransportFailure`` accepts any error of
a remembered class without looking for the tag. The error it was given is tagged and returned as
itself, a tagged error stays tagged through a rethrow, and non-errors are never transport failures;
but an untagged error (a bad-argument failure the plugin meant to flatten into an answer) of the same
class as one marked earlier, in this call or any earlier call on the host, now counts as a transport
failure, for the plugin's own catch-all and for the host's reading of a throw alike.

Cell of the sentence: "``isTransportFailure(x)`` is true for tagged errors only", with ``x`` an
untagged error whose class was marked before (the tag leaks from the error given to its siblings).
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.transport import is_transport_failure as is_tagged_here
from reference_host.transport import mark_transport_failure as host_tag
from tests.subjects.mutants._transport_support import IsTagged, Mark, transport_mutant

RULE = "ERR-5"


class TransportTypes:
    """This host's ``elowen-plugin-shared/transport`` for one host: the broken part is that marking an
    error also remembers its class, and the predicate accepts any error of a remembered class."""

    def __init__(self) -> None:
        self.classes: set[type] = set()

    def mark(self, error: BaseException) -> BaseException:
        if not isinstance(error, BaseException):
            raise TypeError(f"[ERR-5] mark_transport_failure() takes an exception, got {type(error).__name__}")
        host_tag(error)  # the error it is given is tagged and returned, as the reference does
        self.classes.add(type(error))  # ...and its class is taken for a transport-failure class
        return error

    def is_tagged(self, value: Any) -> bool:
        return isinstance(value, BaseException) and (is_tagged_here(value) or type(value) in self.classes)


def helpers(host: Host) -> tuple[Mark, IsTagged]:
    """The host's transport helpers: one set of remembered classes per host, for all its plugins."""
    transport = host.__dict__.setdefault("_transport_failure_classes", TransportTypes())
    return transport.mark, transport.is_tagged


def factory() -> ReferenceHostAdapter:
    return transport_mutant(helpers)
