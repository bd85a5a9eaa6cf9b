"""DIAG-3 broken: provider payload entries carry the registration's origin and owning plugin."""

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
                entry = {**entry, "external": reg.external, "plugin": reg.plugin}
            tools.append(entry)
        answer["payload"] = {**answer["payload"], "tools": tools}
        return answer


def factory() -> Adapter:
    return Adapter()
