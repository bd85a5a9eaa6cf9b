"""SCOPE-2, broken: a scoped tool that is deferred stays in other sessions' catalog.

This host builds the catalog's deferred entries from its deferral index (every tool whose manifest
``deferLoading`` matches), and applies the scope filter only where a tool is loaded into the model's
tool list. So a deferred tool scoped to another platform, Project or account is still listed, as a
deferred catalog entry, in every session, although it is never in their tool list or payload and a
call to it is still an unknown tool. The loader (ToolSearch) searches the scoped catalog as the
reference does, so nothing out of scope can be loaded.

Cell of the sentence: "omitted from other sessions' ... catalog", for a tool whose manifest defers
it (a deferred catalog entry rather than a loaded one); loaded scoped tools, the model tool list and the
call path stay right.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, compose_session, in_scope, is_deferred
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "SCOPE-2"


class DeferredIndexSession(Session):
    _searching = False

    def compose(self) -> Composition:
        composed = super().compose()
        if self._searching:
            return composed  # the loader reads the scoped catalog
        view = self.view()

        def unscoped_if_deferred(reg: Registration) -> Registration:
            if not in_scope(reg, view) and is_deferred(reg, view):
                return replace(reg, owner_user_id=None, project_id=None, platform=None)
            return reg

        indexed = compose_session([unscoped_if_deferred(reg) for reg in self.host.registry], view)
        composed.catalog = indexed.catalog
        return composed

    def _tool_search(self, query: str) -> dict[str, Any]:
        self._searching = True
        try:
            return super()._tool_search(query)
        finally:
            self._searching = False


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(DeferredIndexSession)
