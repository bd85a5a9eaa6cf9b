"""SCOPE-1 broken, in the cell "a delegated child of a Project or platform conversation": the host reads a
sub-agent as a host-side session of its own, with no Project and no platform, so tools scoped to the
parent's Project (``projectId``) or platform (``platform``) are missing from every delegated child's
catalog and tool list and are unknown there. Account-scoped and instance-wide tools, and every opened
session, are as in the reference host.

The rule's sentence: "ownerUserId, projectId and platform scope a contribution to one account, one Project,
or conversations from one platform; without them it is instance-wide" (seed: "registerTool(tool, {
ownerUserId, projectId, platform }) can scope a contribution to one account, one Project, or conversations
from a named platform"): a child works in its parent's conversation, of that Project and platform.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import SessionView
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "SCOPE-1"


class ScopelessChildSession(Session):
    def view(self) -> SessionView:
        view = super().view()
        if self.parent is None:
            return view
        return replace(view, project_id=None, platform=None)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ScopelessChildSession)
