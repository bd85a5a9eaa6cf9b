"""CAP-1 broken for a 4-byte character at byte 997 (see cap_1_four_byte_character_at_997), met over the wire."""

from __future__ import annotations

from pytest_toolconformance.host.wire.client import WireHostAdapter
from tests.subjects.mutants._wire_support import over_the_wire

RULE = "CAP-1"


def factory() -> WireHostAdapter:
    return over_the_wire("cap_1_four_byte_character_at_997")
