"""MANIFEST-1 broken, cell "an external tool": the host applies ``showOutput`` to the plugin's own
tools only and shows every successful result of an external tool (an MCP server's answer is passed to
the user as it came). A successful result's output is hidden unless ``showOutput`` matches the tool,
external tools included. Internal tools are shown or hidden as on the reference host."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "MANIFEST-1"


class ExternalShownSession(Session):
    def _run_handler(self, reg: Registration, *args: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args)
        if reg.external:
            outcome.shown = True
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(ExternalShownSession)
