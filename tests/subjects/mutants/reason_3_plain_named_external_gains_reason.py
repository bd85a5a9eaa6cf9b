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
from reference_host.registry import Registration
from reference_host.schemas import permissive_schema, with_reason
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-3"


class PrefixExclusion(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if not reg.external or reg.name.startswith("mcp__"):
            return entry
        if entry["parameters"] == permissive_schema():
            return entry  # CAP-2 replaced it: not rebuilt from the owner's schema
        entry["parameters"] = with_reason(entry["parameters"])
        return entry


def factory() -> ReferenceHostAdapter:
    return PrefixExclusion()
