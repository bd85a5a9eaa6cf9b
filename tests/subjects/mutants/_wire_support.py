"""Mutants over the wire: an in-process mutant served by tests/subjects/wire_hosts/mutant_host.py."""

from __future__ import annotations

import sys
from pathlib import Path

from pytest_toolconformance.host.wire.client import WireHostAdapter

MUTANT_HOST = Path(__file__).resolve().parents[1] / "wire_hosts" / "mutant_host.py"


def over_the_wire(module: str) -> WireHostAdapter:
    """The mutant ``tests.subjects.mutants.<module>`` as a wire host process."""
    return WireHostAdapter([sys.executable, str(MUTANT_HOST), f"tests.subjects.mutants.{module}"], timeout=10)
