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
from reference_host.composition import Composition
from reference_host.schemas import permissive_schema, with_reason
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "REASON-3"


class ReplacementGainsReason(Session):
    def compose(self) -> Composition:
        comp = super().compose()
        registry = self.host.registry

        def fix(entry: Any) -> dict[str, Any]:
            entry = dict(entry)
            reg = registry.get(entry["name"])
            if reg is not None and reg.external and entry["parameters"] == permissive_schema():
                entry["parameters"] = with_reason(entry["parameters"])
            return entry

        comp.tools = [fix(e) for e in comp.tools]
        comp.payload = {**comp.payload, "tools": [fix(e) for e in comp.payload["tools"]]}
        return comp


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ReplacementGainsReason)
