"""PLAN-2 broken: plan mode executes every internal tool, declared read-only or not."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLAN-2"


class PermissiveSession(Session):
    def _plan_admits(self, reg: Any) -> bool:
        return True


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(PermissiveSession)
