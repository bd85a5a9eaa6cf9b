"""NAME-7 broken: the journal keeps a shallow copy of the arguments (see name_7_shallow_copy), met over the wire."""

from __future__ import annotations

from pytest_toolconformance.host.wire.client import WireHostAdapter
from tests.subjects.mutants._wire_support import over_the_wire

RULE = "NAME-7"


def factory() -> WireHostAdapter:
    return over_the_wire("name_7_shallow_copy")
