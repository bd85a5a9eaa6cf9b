"""SCOPE-2 broken, cell "deferred and scoped elsewhere: not loadable through ToolSearch": ToolSearch
searches every deferred tool of the registry, not the session's own catalog, and a tool it loaded is
then the session's (listed and callable) whatever its scope. A scoped tool is omitted from other
sessions: called from outside its scope it is an unknown tool, and nothing can load it there. Tools
nobody loaded are scoped as on the reference host."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._scope_support import RescopedSession, rescoped

RULE = "SCOPE-2"


class RegistrySearchSession(RescopedSession):
    searching = False

    def rescope(self, reg: Registration) -> Registration:
        # While searching, every deferred tool of the registry is a candidate; once loaded, it stays.
        if reg.name in self.loaded or (self.searching and reg.deferred):
            return replace(reg, owner_user_id=None, project_id=None, platform=None)
        return reg

    def _tool_search(self, query: str) -> dict[str, Any]:
        self.searching = True
        try:
            return super()._tool_search(query)
        finally:
            self.searching = False


def factory() -> ReferenceHostAdapter:
    return rescoped(RegistrySearchSession)
