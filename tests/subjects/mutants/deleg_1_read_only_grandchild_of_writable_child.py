"""DELEG-1 broken in the cell "a read-only origin imposed below a writable child".

Sentence (seed ¶41): "currentAccess().readOnly carries both an admitted Plan restriction and the
immutable delegated read-only origin." RULES.md DELEG-1: "currentAccess().readOnly is true ... for an
immutable delegated read-only origin."

Cell: a Build turn delegates a writable child (``readOnly: false``); that child delegates a read-only
grandchild (``readOnly: true``, the host imposing it; nothing requested). The grandchild's
``currentAccess()`` (adapter and plugin code alike).

What the host does: it builds the descriptor's ``readOnly`` from the parent's descriptor and the
turn's own Plan restriction, so a read-only origin imposed below a writable delegated child is not
reported: ``readOnly`` is false there. The host still enforces it internally (the grandchild is offered
only the read-only set, the sandbox and Bash treat it as read-only), so only what the descriptor says
differs. A read-only origin requested by plugin code, or imposed directly below a Build or Plan turn,
is reported as the reference host does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.sandbox import SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DELEG-1"


class ForgetsOriginBelowWritableChildSession(Session):
    _origin_forgotten = False

    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        req = requested or {}
        child._origin_forgotten = bool(  # type: ignore[attr-defined]
            self.parent is not None
            and not self.restrictions.read_only
            and read_only
            and not req.get("readOnly")
        )
        return child

    def current_access(self) -> AccessDescriptor:
        access = super().current_access()
        if self._origin_forgotten:
            return replace(access, read_only=False)
        return access

    def sandbox_access(self) -> SandboxAccess:
        access = Session.current_access(self)  # the host's own enforcement keeps the restriction
        return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=access.roots)


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ForgetsOriginBelowWritableChildSession)
