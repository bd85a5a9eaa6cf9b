"""Breaks MANIFEST-1: one plugin's ``showOutput`` names show another plugin's tool output.

Cell: ``showOutput`` must match *the tool* through its own manifest. The broken host gathers every
installed manifest's ``showOutput`` name list into one host-wide set and shows a successful result
whenever the tool's name is in it, so a plugin that lists a name it does not own (``showOutput:
["Quiet"]``) makes another plugin's ``Quiet`` output visible although ``Quiet``'s own manifest does
not ask for it. A tool's own ``showOutput`` (true, false, names) works as in the reference host.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome
from tests.subjects.mutants._access_support import mutant_host
from tests.subjects.mutants._calls_support import OutcomeRewritingSession

RULE = "MANIFEST-1"


class HostWideShowOutputSession(OutcomeRewritingSession):
    def _shown_names_match(self, name: str) -> bool:
        registry = self.host.registry
        for plugin in registry.plugins():
            manifest = registry.manifest(plugin)
            if manifest is not None and isinstance(manifest.show_output, tuple) and manifest.shows_output(name):
                return True
        return False

    def rewritten(
        self, outcome: CallOutcome, reg: Registration, params: dict[str, Any], journal: dict[str, Any]
    ) -> CallOutcome:
        if not outcome.is_error and not outcome.shown and self._shown_names_match(reg.name):
            outcome.shown = True
        return outcome


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=HostWideShowOutputSession)
