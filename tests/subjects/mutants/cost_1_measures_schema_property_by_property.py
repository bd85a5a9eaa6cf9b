"""COST-1 broken, in the external schema size cell: to say in the omission notice how many of an
external tool's properties fit under the 8,000-byte cap, composition serializes the definition again
for each property it adds, so the work on one external tool grows with the square of its schema's size.
The catalog's count plays no part: many small external tools compose as fast as on the reference host."""

from __future__ import annotations

import json
from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "COST-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        for entry in answer["catalog"]:
            if entry.get("origin") != "external":
                continue
            reg = self.host.registry.get(entry["name"])
            if reg is None:
                continue
            properties = list((reg.tool.parameters.get("properties") or {}).items())
            grown: dict[str, Any] = {}
            fitting = 0
            for name, schema in properties:
                grown[name] = schema
                definition = {
                    "name": reg.name,
                    "description": reg.tool.description,
                    "parameters": {"type": "object", "properties": grown},
                }
                fitting += len(json.dumps(definition, ensure_ascii=False).encode("utf-8")) <= 8000
        return answer


def factory() -> Adapter:
    return Adapter()
