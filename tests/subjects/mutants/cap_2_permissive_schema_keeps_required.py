"""CAP-2 broken: the schema that replaces an over-8,000-byte external definition keeps the original's
``required`` list, so it is no longer permissive: a call naming none of those parameters breaks it.

The cell: what the replacement schema admits (an external definition over 8,000 bytes whose schema
requires parameters). Its ``properties`` are emptied, ``additionalProperties`` is true and the omission
notice is there, as in the reference host; only ``required`` is carried over.

The sentence broken (seed, RULES.md CAP-2): "definitions above 8,000 serialized bytes receive a
permissive object parameter schema with an omission notice": a schema that rejects ``{}`` is not
permissive.
"""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import OMISSION_NOTICE
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-2"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        parameters = entry.get("parameters") or {}
        required = reg.tool.parameters.get("required")
        if reg.external and parameters.get("description") == OMISSION_NOTICE and required:
            entry["parameters"] = {**parameters, "required": list(required)}
        return entry


def factory() -> Adapter:
    return Adapter()
