"""REASON-3 broken: an external tool with a plain (non-``mcp__``) name gains ``reason``.

Rule (REASON-3): external tools never gain it; their schemas are never reconstructed. Cell: an
external tool (``external: true``) whose name does not start with ``mcp__``, through the compose
path. This host's exclusion test reads ``external && name.startsWith("mcp__")`` (it was written with
the MCP bridge's names in mind), so a plain-named external registration, such as a snapshot-backed
runner tool, has its schema rebuilt with the optional ``reason``. Its origin in the catalog stays
external, its caps (CAP-1/2) apply as before, and its calls are forwarded as sent; ``mcp__``-named
external tools and every internal tool are advertised as the reference host does.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition
from reference_host.schemas import permissive_schema, with_reason
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "REASON-3"


class PrefixExclusion(Session):
    def compose(self) -> Composition:
        comp = super().compose()
        registry = self.host.registry

        def fix(entry: Any) -> dict[str, Any]:
            entry = dict(entry)
            reg = registry.get(entry["name"])
            if reg is None or not reg.external or reg.name.startswith("mcp__"):
                return entry
            if entry["parameters"] == permissive_schema():
                return entry  # CAP-2 replaced it: not rebuilt from the owner's schema
            entry["parameters"] = with_reason(entry["parameters"])
            return entry

        comp.tools = [fix(e) for e in comp.tools]
        comp.payload = {**comp.payload, "tools": [fix(e) for e in comp.payload["tools"]]}
        return comp


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PrefixExclusion)
