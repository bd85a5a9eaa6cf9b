"""MANIFEST-2 broken: deferLoading only defers once a session offers many plugin tools."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import SessionView, in_scope
from reference_host.registry import CORE_PLUGIN
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "MANIFEST-2"
ALSO = {
    "PLAN-4": "their cases need a deferLoading tool to start deferred in a small session",
    "RO-4": "their cases need a deferLoading tool to start deferred in a small session",
}
THRESHOLD = 10


class ThresholdSession(Session):
    def view(self) -> SessionView:
        view = super().view()
        plugin_tools = sum(1 for reg in self.host.registry if reg.plugin != CORE_PLUGIN and in_scope(reg, view))
        return view if plugin_tools > THRESHOLD else replace(view, deferral_enabled=False)


def factory() -> ReferenceHostAdapter:
    return session_mutant(ThresholdSession)
