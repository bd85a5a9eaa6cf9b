"""PLAN-4 broken: on a Plan turn the loader will not load a deferred read-only tool.

Rule (PLAN-4): a read-only declaration does not keep a tool loaded: plan mode reaches a deferred
read-only tool through the loader like any other turn. Cell: the deferral/tool-search path on a
Plan turn, for a plugin tool declared read-only by exact name and listed in ``deferLoading``. This
host half-implements the misreading that plan mode keeps read-only tools loaded: its loader leaves
read-only tools out of its candidates on Plan turns ("they are already available"), while the
catalog and the call pipeline still treat the tool as deferred, so plan mode cannot reach it at
all. Build turns, non-read-only deferred tools, and composition are the reference host's.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from reference_host.tools import text_result
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLAN-4"


class PlanLoaderSkipsReadOnly(Session):
    def _tool_search(self, query: str) -> dict[str, Any]:
        registry = self.host.registry
        candidates = [entry["name"] for entry in self.compose().catalog if entry["deferred"]]
        if self.restrictions.plan_turn:
            # the read-only set plan mode runs is taken as already loaded, so it is no candidate
            candidates = [n for n in candidates if not (registry.get(n) and self._plan_admits(registry.get(n)))]
        if query.startswith("select:"):
            wanted = {n.strip() for n in query[len("select:") :].split(",") if n.strip()}
            chosen = [n for n in candidates if n in wanted]
        else:
            words = [w for w in re.split(r"\s+", query.lower()) if w]
            chosen = []
            for name in candidates:
                reg = registry.get(name)
                properties = (reg.tool.parameters.get("properties") or {}) if reg else {}
                haystack = f"{name} {reg.tool.description if reg else ''} {' '.join(properties)}".lower()
                if words and all(w in haystack for w in words):
                    chosen.append(name)
        self.loaded.update(chosen)
        if not chosen:
            return text_result(f"No deferred tool matches {query!r}.")
        return text_result("Loaded: " + ", ".join(chosen), {"loaded": chosen})


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=PlanLoaderSkipsReadOnly)
