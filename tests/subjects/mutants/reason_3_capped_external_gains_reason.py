"""REASON-3 broken: the permissive schema that replaces an oversized external definition gains ``reason``.

Rule (REASON-3): external tools never gain it (advertised byte-identical, unless CAP-2 replaced
them). Cell: an external tool whose definition is over 8,000 serialized bytes, so CAP-2 replaced its
schema with the permissive object schema. This host treats the replacement as a host-made schema and
runs it through ``withReason`` like an internal one, so the oversized external tool is advertised
with an optional ``reason`` (the permissive schema and its omission notice are otherwise kept).
External tools within the caps and every internal tool are advertised as the reference host does.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.schemas import permissive_schema, with_reason
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-3"


class ReplacementGainsReason(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external and entry["parameters"] == permissive_schema():
            entry["parameters"] = with_reason(entry["parameters"])
        return entry


def factory() -> ReferenceHostAdapter:
    return ReplacementGainsReason()
