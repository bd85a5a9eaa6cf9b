"""COST-1 broken: composition looks each external tool's owner up by scanning the whole catalog (quadratic).

Only the external fifth of the catalog is looked up: the growth per tool is the same ~10x as a lookup
of every tool (a fifth of the tools, each scanning a catalog ten times longer), at a fifth of the cost
of the kit's own run of this mutant."""

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
            if entry.get("origin") == "external":
                # The "owner lookup per external tool" (to cap it) that makes composition O(n^2).
                next((reg for reg in self.host.registry if reg.name == entry["name"]), None)
        return answer


def factory() -> Adapter:
    return Adapter()
