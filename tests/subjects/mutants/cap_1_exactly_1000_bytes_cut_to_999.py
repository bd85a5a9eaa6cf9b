"""CAP-1 broken at the exact boundary: a description of 1,000 bytes or more is cut to 999
(``>=`` for ``>``, and one short).

Every description under 1,000 bytes is advertised unchanged, so only the boundary shows it.
"""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import cap_utf8
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        original = reg.tool.description
        if reg.external and len(original.encode("utf-8", "surrogatepass")) >= 1000:
            entry["description"] = cap_utf8(original, 999)
        return entry


def factory() -> Adapter:
    return Adapter()
