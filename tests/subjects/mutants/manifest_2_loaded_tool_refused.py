"""MANIFEST-2 broken, cell "a deferred tool loaded with ToolSearch is advertised and runs": ToolSearch
loads the tool into the session's tool list, but the host's executor checks only the registration's
deferLoading flag, so calling the loaded tool is still refused as deferred. A deferred tool is deferred
until it is loaded; once loaded it is advertised and runs."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "MANIFEST-2"
ALSO = {
    "EXT-4": "their cases call a deferred tool after loading it with ToolSearch, which this host still refuses",
    "PLAN-3": (
        "its case calls a deferred external tool after loading it, expecting plan mode and not deferral to refuse it"
    ),
    "PLAN-4": "its case runs a deferred read-only tool on a Plan turn after loading it, which this host still refuses",
}


class UnloadedGateSession(Session):
    def _gate(self, reg: Registration | None, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        loaded, self.loaded = self.loaded, set()
        try:
            return super()._gate(reg, tool, call_id, args, journal)
        finally:
            self.loaded = loaded


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(UnloadedGateSession)
