"""CAP-1 broken: the cut is at byte 1,000 whatever is there, and the broken sequence is decoded
with a replacement character (what ``bytes[:1000].decode(errors="replace")`` does)."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-1"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        data = reg.tool.description.encode("utf-8")
        if reg.external and len(data) > 1000:
            entry["description"] = data[:1000].decode("utf-8", errors="replace")
        return entry


def factory() -> Adapter:
    return Adapter()
