"""CAP-2 broken: the definition is measured with Python's default ``json.dumps`` (ASCII escapes,
spaces, ``0.0``) instead of ``JSON.stringify`` bytes."""

from __future__ import annotations

import json
from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import EXTERNAL_DEFINITION_CAP, cap_utf8, permissive_schema
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-2"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            tool = reg.tool
            definition = {"name": tool.name, "description": cap_utf8(tool.description, 1000),
                          "parameters": tool.parameters}
            size = len(json.dumps(definition).encode("utf-8"))
            entry["parameters"] = permissive_schema() if size > EXTERNAL_DEFINITION_CAP else tool.parameters
        return entry


def factory() -> Adapter:
    return Adapter()
