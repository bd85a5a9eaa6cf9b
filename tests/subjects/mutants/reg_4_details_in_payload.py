"""REG-4 broken: the provider payload replays earlier tool results with their details."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "REG-4"


class Adapter(AnswerMutant):
    def __init__(self) -> None:
        super().__init__()
        self._results: list[dict[str, Any]] = []

    def reset(self) -> None:
        super().reset()
        self._results = []

    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
        answer = super().call(session, tool, arguments, call_id)
        if answer.get("handlerRan"):
            self._results.append({"tool": tool, "content": answer.get("content"), "details": answer.get("details")})
        return answer

    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "payload" in answer:
            answer["payload"] = {**answer["payload"], "input": list(self._results)}
        return answer


def factory() -> Adapter:
    return Adapter()
