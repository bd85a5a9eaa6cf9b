"""PLANFILE-5 broken: a delegated child inherits its parent's planFile."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-5"
ALSO = {
    "PLANFILE-1": "a child with a planFile breaks the allowance being absent on every delegated read-only origin",
}


class ForwardingSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        child.restrictions = replace(child.restrictions, plan_file=self.restrictions.plan_file)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ForwardingSession)
