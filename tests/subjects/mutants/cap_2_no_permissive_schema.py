"""CAP-2 broken: external definitions over 8,000 bytes keep their full parameter schema."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-2"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            entry["parameters"] = reg.tool.parameters
        return entry


def factory() -> Adapter:
    return Adapter()
