"""COST-1 broken, cell "a session's first composition": the first time a session composes, the host
checks each tool's owner by scanning the whole catalog (quadratic), and keeps the result for the
session, so later compositions are linear. Session composition is linear in the catalog, the first
composition included.

Every tool is looked up, not only the external fifth as in cost_1_rescans_catalog_per_tool: a first
composition does more linear work of its own (each tool's caps worked out), which a fifth's scan grew
only about 4.7x past, at the check's 4x limit; every tool's scan grows it well past."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import AnswerMutant

RULE = "COST-1"


class Adapter(AnswerMutant):
    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        checked: set[str] = self.__dict__.setdefault("_owners_checked", set())
        if session in checked:
            return answer
        checked.add(session)
        for entry in answer["catalog"]:
            next((reg for reg in self.host.registry if reg.name == entry["name"]), None)
        return answer


def factory() -> Adapter:
    return Adapter()
