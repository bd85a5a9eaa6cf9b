"""SCOPE-1 broken, cell "projectId": the host filters Project-scoped tools only where the session has a
Project of its own ("no Project, nothing to compare"), so a session outside every Project lists and
runs every Project's tools. Sessions in another Project still do not see them."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._scope_support import RescopedSession, rescoped

RULE = "SCOPE-1"


class ProjectlessSession(RescopedSession):
    def rescope(self, reg: Registration) -> Registration:
        if reg.project_id is not None and self.spec.project_id is None:
            return replace(reg, project_id=None)
        return reg


def factory() -> ReferenceHostAdapter:
    return rescoped(ProjectlessSession)
