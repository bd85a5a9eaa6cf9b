"""GRANT-1 broken, in the cell "a delegated child": a delegated child's calls are taken as admitted by the
parent's grant when the child was made, so the child skips the plugin grant and deny-list: after the
account's grant is revoked, the parent is refused and the child still runs the tool."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "GRANT-1"


class UngrantedChild(Session):
    def _stage_grant(self, gate: Any) -> CallOutcome | None:
        if self.parent is not None:
            return None
        return super()._stage_grant(gate)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=UngrantedChild)
