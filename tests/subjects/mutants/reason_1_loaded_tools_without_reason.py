"""REASON-1 broken in the cell "deferred internal tools, when loaded": the loader adds a deferred
tool to the session with the definition the registry holds, so an internal tool loaded through
ToolSearch is advertised without ``reason``; tools never deferred gain it as they should."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "REASON-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry, loaded = self.host.registry, self.host.session(session).loaded

        def raw(entry: dict[str, Any]) -> dict[str, Any]:
            reg = registry.get(entry["name"])
            if reg is None or reg.external or not reg.deferred or reg.name not in loaded:
                return entry
            return {**entry, "parameters": reg.tool.parameters}

        answer["tools"] = [raw(e) for e in answer["tools"]]
        answer["payload"] = {**answer["payload"], "tools": [raw(e) for e in answer["payload"]["tools"]]}
        return answer


def factory() -> Adapter:
    return Adapter()
