"""RO-4 broken, in the cell "output artifact selection: showOutput decides, not the declaration": the host
takes a read-only tool's output as safe to show, so a successful result of a tool declared in
``readOnlyTools`` is shown although the manifest's ``showOutput`` does not select it. Undeclared tools'
output follows ``showOutput`` as before."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._calls_support import session_mutant

RULE = "RO-4"


class ReadOnlyShownSession(Session):
    def _run_handler(self, reg: Any, *args: Any, **kwargs: Any) -> CallOutcome:
        outcome = super()._run_handler(reg, *args, **kwargs)
        if reg.read_only and reg.plugin != "core" and not outcome.is_error:
            outcome.shown = True
        return outcome


def factory() -> ReferenceHostAdapter:
    return session_mutant(ReadOnlyShownSession)
