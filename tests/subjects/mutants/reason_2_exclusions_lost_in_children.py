"""REASON-2 broken: a delegated child is offered Bash and ToolSearch with ``reason``.

Rule (REASON-2): Bash and ToolSearch never gain it. Cell: the delegation path: what a delegated
(read-only) sub-agent is offered. This host builds a child's tool list in its own sub-agent pass,
which re-applies ``withReason`` to every internal tool it keeps and forgets the fixed exclusions, so
the child's Bash (kept under the non-destructive boundary) and ToolSearch (core read-only) gain the
optional ``reason``. Top-level sessions, and every other tool a child receives, are advertised as
the reference host does.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition
from reference_host.schemas import REASON_EXCLUDED, with_reason
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "REASON-2"


class ChildListRebuilt(Session):
    def compose(self) -> Composition:
        comp = super().compose()
        if self.parent is None:
            return comp

        def fix(entry: Any) -> dict[str, Any]:
            entry = dict(entry)
            if entry["name"] in REASON_EXCLUDED:
                entry["parameters"] = with_reason(entry["parameters"])
            return entry

        comp.tools = [fix(e) for e in comp.tools]
        comp.payload = {**comp.payload, "tools": [fix(e) for e in comp.payload["tools"]]}
        return comp


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ChildListRebuilt)
