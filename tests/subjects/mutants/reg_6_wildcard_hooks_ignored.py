"""REG-6 broken in the cell "hooks: ... a '*' hook applies to all": hooks are looked up by the called
tool's exact name, so a hook registered for ``*`` never applies. A hook for the tool itself refuses or
allows as it should; another tool's hook does not apply."""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "REG-6"


class ExactHooksSession(Session):
    def _stage_hook(self, gate: _Gate) -> CallOutcome | None:
        for hook in self.spec.hooks:
            if hook.tool == gate.tool:
                gate.hooks_ran.append(hook.tool)
                if hook.decision == "deny":
                    return self._refused(
                        gate.tool,
                        gate.call_id,
                        gate.journal,
                        "hook",
                        "REG-6",
                        hook.message or f"A hook refused the call to {gate.tool!r}.",
                        gate.hooks_ran,
                    )
        return None


def factory() -> ReferenceHostAdapter:
    return session_mutant(ExactHooksSession)
