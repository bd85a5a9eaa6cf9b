"""CAP-1 broken for one code-point width only: the cut backs off at most two continuation bytes.

Right for every 2- and 3-byte character across byte 1,000; a 4-byte character starting at byte
997 leaves its lead byte behind, which decodes to U+FFFD: valid text, 1,000 bytes, not a prefix.
"""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-1"


def short_backoff_cut(text: str, limit: int = 1000) -> str:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    cut = limit
    for _ in range(2):  # enough for a 3-byte character, one short for a 4-byte one
        if (data[cut] & 0xC0) == 0x80:
            cut -= 1
    return data[:cut].decode("utf-8", "replace")


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            entry["description"] = short_backoff_cut(reg.tool.description)
        return entry


def factory() -> Adapter:
    return Adapter()
