"""REASON-1 broken: internal plugin tools are advertised without the reason field (core tools keep it)."""

from __future__ import annotations

from typing import Any

from reference_host.registry import CORE_PLUGIN, Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if not reg.external and reg.plugin != CORE_PLUGIN:
            entry["parameters"] = reg.tool.parameters
        return entry


def factory() -> Adapter:
    return Adapter()
