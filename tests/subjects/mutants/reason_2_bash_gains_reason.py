"""REASON-2 broken: Bash and ToolSearch are advertised with the reason field like every other internal tool."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import with_reason
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-2"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.name in ("Bash", "ToolSearch"):
            entry["parameters"] = with_reason(entry["parameters"])
        return entry


def factory() -> Adapter:
    return Adapter()
