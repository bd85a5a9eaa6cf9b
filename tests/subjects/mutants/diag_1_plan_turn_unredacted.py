"""DIAG-1 broken, cell "Plan turns": a Plan turn composes through the host's plan-mode path, which builds
the cache diagnostics from the registrations without the external redaction, so a Plan turn's
diagnostics name external tools and the namespaces hosting them. Build turns are redacted as on the
reference host."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "DIAG-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer or not self.host.session(session).restrictions.plan_turn:
            return answer
        tools = [
            {
                "name": entry["name"],
                "namespace": "core" if entry["owner"] == "core" else f"plugin:{entry['owner']}",
                "loaded": not entry["deferred"],
            }
            for entry in answer["catalog"]
        ]
        answer["diagnostics"] = {"tools": tools, "redacted": {"tools": 0, "namespaces": 0}}
        return answer


def factory() -> Adapter:
    return Adapter()
