"""CAP-2 broken in the cell "bytes, not characters": the definition is measured in characters of its
JSON text (``len(JSON.stringify(definition))``), not in UTF-8 bytes. An ASCII definition measures
the same either way; one over 8,000 bytes of multi-byte text but under 8,000 characters keeps its
schema. The description cut (CAP-1) is done right."""

from __future__ import annotations

from reference_host.registry import Registration
from reference_host.schemas import (
    EXTERNAL_DEFINITION_CAP,
    EXTERNAL_DESCRIPTION_CAP,
    cap_utf8,
    permissive_schema,
    to_json,
)
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "CAP-2"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        if not reg.external:
            return entry
        tool = reg.tool
        description = cap_utf8(tool.description, EXTERNAL_DESCRIPTION_CAP)
        size = len(to_json({"name": tool.name, "description": description, "parameters": tool.parameters}))
        entry["description"] = description
        entry["parameters"] = permissive_schema() if size > EXTERNAL_DEFINITION_CAP else tool.parameters
        return entry


def factory() -> Adapter:
    return Adapter()
