"""REASON-1 broken in the cell "core tools": the host adds ``reason`` through its plugin API only, so
plugin tools gain it and the host's own core tools (Read, Write, Glob...) are advertised without it."""

from __future__ import annotations

from reference_host.registry import CORE_PLUGIN, Registration
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "REASON-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        if reg.plugin == CORE_PLUGIN:
            entry["parameters"] = reg.tool.parameters
        return entry


def factory() -> Adapter:
    return Adapter()
