"""DIAG-2 broken: the diagnostics redact every tool name, local ones too, external registrations or not."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "DIAG-2"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        diagnostics = answer["diagnostics"]
        tools = [{**entry, "name": "<tool>", "namespace": "<namespace>"} for entry in diagnostics["tools"]]
        answer["diagnostics"] = {**diagnostics, "tools": tools}
        return answer


def factory() -> Adapter:
    return Adapter()
