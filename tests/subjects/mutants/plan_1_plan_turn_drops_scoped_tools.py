"""PLAN-1 broken, in the cell "scoped and deferred tools, random catalogs": a Plan turn's tool list is
composed for the instance, not for the session's account, Project and platform, so tools scoped to them are
missing from a Plan turn's tool list, catalog and payload, though they are on the Build turn's. Calls are
looked up in the session's scope as before."""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition, compose_session
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-1"


class UnscopedPlanComposition(Session):
    def compose(self) -> Composition:
        if not self.restrictions.plan_turn:
            return super().compose()
        view = replace(self.view(), account="", project_id=None, platform=None)
        return compose_session(self.host.registry, view)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(UnscopedPlanComposition)
