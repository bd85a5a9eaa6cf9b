"""PLANFILE-6 broken, in the cell "non-destructive commands run, with no writable environment descriptor":
command execution asks for a writable access descriptor, so on a read-only turn Bash refuses every
command, ``ls`` included, instead of running the non-destructive ones. Build turns run commands as before."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from reference_host.tools import text_result
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-6"


class WritableBashSession(Session):
    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if name == "Bash" and self.current_access().read_only:
            return text_result("Bash needs a writable environment; this turn's access is read-only.", {"ok": False})
        return super().run_core_tool(name, call_id, params)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=WritableBashSession)
