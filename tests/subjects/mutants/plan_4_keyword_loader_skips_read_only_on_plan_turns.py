"""PLAN-4 broken in the cell "a keyword query on a Plan turn".

Sentence (seed ¶48): "A read-only declaration does not keep a tool loaded: plan mode reaches deferred
read-only tools through the loader like any other turn." RULES.md PLAN-4: "plan mode reaches a deferred
read-only tool through the loader like any other turn."

Cell: a Plan turn (host, managed or local) searches the loader with keywords (not ``select:NAME``) that
match a deferred read-only tool (exact name or ``mcp__*``-classified).

What the host does: on a Plan turn the keyword search leaves out tools classified read-only (a leftover
of a "read-only tools stay loaded in plan mode" design whose auto-load part was removed: the keyword
index assumed they were already loaded). ``select:`` loads them as on any turn; Build turns, children,
and keyword searches for other tools are the reference host's.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from reference_host.tools import text_result
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLAN-4"


class PlanKeywordSearchSkipsReadOnlySession(Session):
    def _tool_search(self, query: str):  # type: ignore[no-untyped-def]
        if not self.restrictions.plan_turn or query.startswith("select:"):
            return super()._tool_search(query)
        before = set(self.loaded)
        result = super()._tool_search(query)
        added = set(self.loaded) - before
        withheld = {n for n in added if (reg := self.host.registry.get(n)) is not None and reg.read_only}
        if not withheld:
            return result
        self.loaded -= withheld
        kept = [n for n in (result.get("details") or {}).get("loaded", []) if n not in withheld]
        if not kept:
            return text_result(f"No deferred tool matches {query!r}.")
        return text_result("Loaded: " + ", ".join(kept), {"loaded": kept})


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanKeywordSearchSkipsReadOnlySession)
