"""PLANFILE-5 broken, in the cell "the delegating Plan turn keeps its own allowance": to be sure the
allowance never reaches a child, the host withdraws it from the Plan turn that delegates, so after its first
delegation the Plan turn has no ``planFile`` and its own plan write is refused. Its children get none, as
in the reference host; a Plan turn that never delegates keeps its allowance."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-5"


class WithdrawingSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        if self.restrictions.plan_file is not None:
            self.restrictions = replace(self.restrictions, plan_file=None)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=WithdrawingSession)
