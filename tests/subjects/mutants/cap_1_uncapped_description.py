"""CAP-1 broken: external descriptions are advertised uncapped."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-1"
ALSO = {
    "CAP-3": "the registry-keeps-the-original cases compare the advertised external description with the capped "
             "original",
}


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            entry["description"] = reg.tool.description
        return entry


def factory() -> Adapter:
    return Adapter()
