"""SCOPE-2, broken: a delegated child's tool list and catalog are not filtered by scope.

This host scope-filters what an opened session is offered, but treats a delegated child as working
on its parent's behalf: the parent's tools were already "authorized by scope", so the child is
composed from the whole registry without the scope filter (and its calls look tools up the same
way). A tool scoped to another platform, Project or account than the conversation's therefore shows
up in every sub-agent's model tool list and catalog, and a sub-agent can call it. Opened sessions are
scoped exactly as the reference scopes them, and a read-only child still receives only its read-only
set.

Cell of the sentence: "omitted from other sessions' model tool lists and catalog ... called from
outside its scope it is an unknown tool", for the sessions a delegation creates (children and
grandchildren) rather than those a conversation opens.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._scope_support import RescopedSession, rescoped

RULE = "SCOPE-2"
ALSO = {
    "RO-5": "a read-only child offered read-only tools scoped outside its conversation receives more than its set",
}


class ChildrenUnscopedSession(RescopedSession):
    def rescope(self, reg: Registration) -> Registration:
        if self.parent is None:
            return reg
        return replace(reg, owner_user_id=None, project_id=None, platform=None)


def factory() -> ReferenceHostAdapter:
    return rescoped(ChildrenUnscopedSession)
