"""SCOPE-2 broken in the cell "a call, from outside its scope, of a scoped tool".

Sentence (seed ¶38-39): "A platform-scoped tool is omitted from other sessions' model tool lists and
catalog, not merely rejected when called." RULES.md SCOPE-2: "A scoped tool is omitted from other
sessions' model tool lists and catalog, not merely refused; called from outside its scope it is an
unknown tool."

Cell: a session outside a tool's scope (another account, another Project, another platform, or no
Project / platform) calls that tool by name.

What the host does: composition is right (the tool is not listed, not in the catalog, not loadable),
but its call lookup finds every registered tool, and an out-of-scope one is refused by the entitlement
stage, "not permitted in this session (scoped to another account, Project or platform)", instead of as
an unknown tool. The handler never runs; the refusal tells the model the tool exists.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import in_scope
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "SCOPE-2"


class ScopeRefusedAsPermissionSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]):  # type: ignore[no-untyped-def]
        if reg is None:
            known = self.host.registry.get(tool)
            if known is not None and not in_scope(known, self.view()):
                return self._refused(
                    tool, call_id, journal, "grant", "GRANT-1",
                    f"Tool {tool!r} is not permitted in this session: it is scoped to another account, "
                    "Project or platform.",
                )
        return super()._gate(reg, tool, call_id, args, journal)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ScopeRefusedAsPermissionSession)
