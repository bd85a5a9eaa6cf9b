"""PLANFILE-1 broken: a managed or local Project conversation gets a planFile on its Build turns too."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.session import Session, SessionSpec
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-1"


class BuildPlanFileHost(Host):
    def open_session(self, spec: Mapping[str, Any] | SessionSpec) -> Session:
        session = super().open_session(spec)
        if session.spec.conversation in ("managed", "local") and session.restrictions.plan_file is None:
            plan = f"/workspace/.plans/{session.id}/plan.md"
            session.restrictions = replace(session.restrictions, plan_file=plan)
        return session


def factory() -> ReferenceHostAdapter:
    return mutant_host(host_class=BuildPlanFileHost)
