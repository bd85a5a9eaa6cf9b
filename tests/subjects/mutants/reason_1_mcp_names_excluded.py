"""REASON-1 broken in the cell "mcp__-named internal tools": the reason exclusion set is written by
name (Bash, ToolSearch and every ``mcp__`` name, "the external tools"), so an internal tool named
``mcp__...`` (``external: false`` or the option omitted) is advertised without ``reason``. Its
origin is right everywhere else (catalog, caps, validation, diagnostics)."""

from __future__ import annotations

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "REASON-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        if not reg.external and reg.name.startswith("mcp__"):
            entry["parameters"] = reg.tool.parameters
        return entry


def factory() -> Adapter:
    return Adapter()
