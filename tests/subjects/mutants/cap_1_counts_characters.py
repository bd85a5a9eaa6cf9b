"""CAP-1 broken: the description cap counts characters (1,000 of them), not UTF-8 bytes."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            entry["description"] = reg.tool.description[:1000]
        return entry


def factory() -> Adapter:
    return Adapter()
