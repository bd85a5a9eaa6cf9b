"""PLANFILE-6 broken: Bash hands every command to a shell, read-only turn or not."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.bash import run_command
from reference_host.session import Session
from reference_host.workspace import as_tool_result
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-6"


class ShellSession(Session):
    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if name != "Bash":
            return super().run_core_tool(name, call_id, params)
        root = self.sandbox_root()
        return as_tool_result(run_command(params["command"], cwd=root, read_only=False, root=root))


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ShellSession)
