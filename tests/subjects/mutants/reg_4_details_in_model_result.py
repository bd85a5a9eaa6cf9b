"""REG-4 broken: the tool result the model receives carries the handler's details."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "REG-4"


class Adapter(AnswerMutant):
    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
        answer = super().call(session, tool, arguments, call_id)
        if "modelResult" in answer and answer.get("details"):
            answer["modelResult"] = {**answer["modelResult"], "details": answer["details"]}
        return answer


def factory() -> Adapter:
    return Adapter()
