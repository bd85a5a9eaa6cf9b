"""DELEG-2 broken in the cell "a read-only child of a Build turn".

Sentence (seed ¶41): "An imposed delegated origin also keeps planMode true for further delegation even
though the child itself starts in Build and receives no owner-chat mode directive." Reading
(docs/access-model.md §5, DELEG-2): planMode is *kept* when the parent was in plan mode; "A read-only
child of a Build turn is read-only but not in plan mode ... a Build turn has none to keep."

Cell: a Build turn (host, managed or local conversation) delegates a read-only child (host-imposed or
requested); the child's ``currentAccess().planMode`` (and its own children's).

What the host does: it reads "an imposed delegated origin keeps planMode true" as "imposes" it: every
read-only child gets ``planMode: true``, even below a Build turn. Nothing else changes (the child's
turn is Build, no mode directive, no plan-mode execution policy; children of Plan turns as the
reference host).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-2"


class ReadOnlyOriginImposesPlanModeSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        if child.restrictions.delegated_read_only and not child.restrictions.inherited_plan_mode:
            child.restrictions = replace(child.restrictions, inherited_plan_mode=True)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ReadOnlyOriginImposesPlanModeSession)
