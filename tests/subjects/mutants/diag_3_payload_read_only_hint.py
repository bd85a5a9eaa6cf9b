"""DIAG-3 broken, cell "scope and read-only classification": the host marks each read-only tool in the
provider payload with MCP's ``annotations: {readOnlyHint: true}`` (taken from its read-only
classification), and every other tool with ``readOnlyHint: false``. Registration metadata, the
read-only classification included, is never inserted into provider payloads. Nothing else changes."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "DIAG-3"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        tools = []
        for entry in answer["payload"]["tools"]:
            reg = registry.get(entry["name"])
            if reg is not None:
                entry = {**entry, "annotations": {"readOnlyHint": reg.read_only}}
            tools.append(entry)
        answer["payload"] = {**answer["payload"], "tools": tools}
        return answer


def factory() -> Adapter:
    return Adapter()
