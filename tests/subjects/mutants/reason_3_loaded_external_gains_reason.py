"""REASON-3 broken in the cell "deferred external tools, when loaded": the loader runs every tool it
loads through the internal path's ``withReason``, so a deferred external tool, once loaded through
ToolSearch, is advertised with ``reason`` added to its schema. Its origin stays external (capped,
redacted, not validated, refused in Plan); external tools never deferred are advertised as
registered."""

from __future__ import annotations

from typing import Any

from reference_host.schemas import with_reason
from tests.subjects.mutants.base import AnswerMutant

RULE = "REASON-3"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry, loaded = self.host.registry, self.host.session(session).loaded

        def reasoned(entry: dict[str, Any]) -> dict[str, Any]:
            reg = registry.get(entry["name"])
            if reg is None or not reg.external or not reg.deferred or reg.name not in loaded:
                return entry
            parameters = entry.get("parameters")
            if not isinstance(parameters, dict) or not isinstance(parameters.get("properties"), dict):
                return entry
            return {**entry, "parameters": with_reason(parameters)}

        answer["tools"] = [reasoned(e) for e in answer["tools"]]
        answer["payload"] = {**answer["payload"], "tools": [reasoned(e) for e in answer["payload"]["tools"]]}
        return answer


def factory() -> Adapter:
    return Adapter()
