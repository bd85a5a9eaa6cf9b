"""DIAG-2 broken: the diagnostics keep every local tool name, but redact every hosted namespace (plugin)
whatever it contains, external registrations or not. Without external registrations, local diagnostic
names stay local: a namespace holding no external tool is a local name too."""

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
        tools = [{**entry, "namespace": "<namespace>"} for entry in diagnostics["tools"]]
        answer["diagnostics"] = {**diagnostics, "tools": tools}
        return answer


def factory() -> Adapter:
    return Adapter()
