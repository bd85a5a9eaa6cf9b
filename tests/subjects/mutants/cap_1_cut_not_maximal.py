"""CAP-1 broken: an over-long description is cut "safely" short, at 996 bytes, dropping whole
characters that would have fitted."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import cap_utf8
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external and len(reg.tool.description.encode("utf-8")) > 1000:
            entry["description"] = cap_utf8(reg.tool.description, 996)
        return entry


def factory() -> Adapter:
    return Adapter()
