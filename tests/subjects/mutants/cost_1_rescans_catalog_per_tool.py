"""COST-1 broken: composition looks each advertised tool up by scanning the whole catalog (quadratic)."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "COST-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        for entry in answer["catalog"]:
            # The "owner lookup per tool" that makes composition O(n^2).
            next((reg for reg in self.host.registry if reg.name == entry["name"]), None)
        return answer


def factory() -> Adapter:
    return Adapter()
