"""PLAN-1 broken in the cell "a deferred tool plan mode will refuse, after a ToolSearch load on a Plan turn".

Sentence (seed ¶47): "Plan mode keeps every tool advertised and executes only the read-only set."
RULES.md PLAN-1: "the model's tool list equals the Build list for the same session."

Cell: a Plan turn (host, managed or local) loads, through ToolSearch (``select:`` or keywords), a
deferred plugin tool that is neither read-only nor plan-admitted (undeclared internal, undeclared
external); after the load, its tool list, catalog and payload.

What the host does: on a Plan turn its loader loads only tools that are read-only or that plan mode
admits; an undeclared deferred tool matched by the query stays deferred (the loader answers as if
nothing matched it), so the Plan turn's composition keeps it deferred where a Build turn's loader
loads it into the tool list. Read-only deferred tools (internal or external) load as on any turn;
Build turns and children are the reference host's.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.core_tools import CORE_READ_ONLY, PLAN_DEFAULTS
from reference_host.session import Session
from reference_host.tools import text_result
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLAN-1"


class PlanLoaderSkipsUnrunnableSession(Session):
    def _tool_search(self, query: str):  # type: ignore[no-untyped-def]
        if not self.restrictions.plan_turn:
            return super()._tool_search(query)
        before = set(self.loaded)
        result = super()._tool_search(query)
        added = set(self.loaded) - before
        withheld = set()
        for name in added:
            reg = self.host.registry.get(name)
            runnable = reg is not None and (
                reg.read_only or (not reg.external and (reg.name in CORE_READ_ONLY or reg.name in PLAN_DEFAULTS
                                                        or reg.plan_admitted))
            )
            if not runnable:
                withheld.add(name)
        if not withheld:
            return result
        self.loaded -= withheld
        kept = [n for n in (result.get("details") or {}).get("loaded", []) if n not in withheld]
        if not kept:
            return text_result(f"No deferred tool matches {query!r}.")
        return text_result("Loaded: " + ", ".join(kept), {"loaded": kept})


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanLoaderSkipsUnrunnableSession)
