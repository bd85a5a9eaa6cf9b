"""CAP-1 broken: external descriptions are advertised uncapped."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.mutants._composition_support import RewriteTools

RULE = "CAP-1"
# The CAP-3 cases compare the advertised external description with the capped original, and the
# EXT-2/EXT-4 cases use "capped" as the sign that a tool is external: an uncapped host fails them too.
ALSO = ("CAP-3", "EXT-2", "EXT-4")


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            entry["description"] = reg.tool.description
        return entry


def factory() -> Adapter:
    return Adapter()
