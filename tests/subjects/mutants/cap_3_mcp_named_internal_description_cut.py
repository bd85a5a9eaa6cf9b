"""CAP-3 broken: an internal tool whose name starts with ``mcp__`` gets its description cut to
1,000 bytes, as if its name made it external.

The cell: an internal (``external: false`` or omitted) ``mcp__``-named plugin tool with a description
over 1,000 bytes. Its origin stays internal everywhere (catalog, ``reason``, validation, plan policy);
only the description cap follows the name. Its parameters are not touched (its ``reason`` stays).

The sentence broken (RULES.md CAP-3; seed): "Caps touch external tools only, and only at composition:
internal tools are never capped" / "tool names never imply origin, and an explicit false stays
internal even with an mcp__ prefix".
"""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import EXTERNAL_DESCRIPTION_CAP, cap_utf8
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-3"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if not reg.external and reg.name.startswith("mcp__"):
            entry["description"] = cap_utf8(reg.tool.description, EXTERNAL_DESCRIPTION_CAP)
        return entry


def factory() -> Adapter:
    return Adapter()
