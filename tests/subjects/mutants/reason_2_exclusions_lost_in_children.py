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
from reference_host.registry import Registration
from reference_host.schemas import REASON_EXCLUDED, with_reason
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-2"


class ChildListRebuilt(RewriteTools):
    def rewrites(self, session: str) -> bool:
        return self.host.session(session).parent is not None

    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if entry["name"] in REASON_EXCLUDED:
            entry["parameters"] = with_reason(entry["parameters"])
        return entry


def factory() -> ReferenceHostAdapter:
    return ChildListRebuilt()
