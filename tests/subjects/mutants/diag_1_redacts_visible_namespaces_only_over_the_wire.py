"""DIAG-1 broken: a namespace is redacted only where its external tool is visible (see
diag_1_redacts_visible_namespaces_only), met over the wire."""

from __future__ import annotations

from pytest_toolconformance.host.wire.client import WireHostAdapter
from tests.subjects.mutants._wire_support import over_the_wire

RULE = "DIAG-1"


def factory() -> WireHostAdapter:
    return over_the_wire("diag_1_redacts_visible_namespaces_only")
