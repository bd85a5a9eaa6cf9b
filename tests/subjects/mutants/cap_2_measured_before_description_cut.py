"""CAP-2 broken: the definition is measured with the uncut description (the Reading measures after CAP-1)."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import EXTERNAL_DEFINITION_CAP, json_bytes, permissive_schema
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-2"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            tool = reg.tool
            size = json_bytes({"name": tool.name, "description": tool.description, "parameters": tool.parameters})
            entry["parameters"] = permissive_schema() if size > EXTERNAL_DEFINITION_CAP else tool.parameters
        return entry


def factory() -> Adapter:
    return Adapter()
