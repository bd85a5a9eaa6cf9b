"""CAP-3 broken: the external caps are applied to internal tools as well."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import capped_external_definition
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "CAP-3"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if not reg.external:
            description, parameters, replaced = capped_external_definition(
                reg.name, entry["description"], entry["parameters"])
            entry["description"] = description
            if replaced:
                entry["parameters"] = parameters
        return entry


def factory() -> Adapter:
    return Adapter()
