"""RO-5 broken in the cell "a child made read-only by plugin code's request only".

Sentence (seed ¶47): "The same declaration decides what read-only sub-agents receive, so declare a tool
only when it changes nothing outside the agent's own working state." RULES.md RO-5: "The read-only
declaration decides what read-only sub-agents receive."

Cell: a Build turn delegates a child with ``readOnly: false`` while the access plugin code constructed
for it asks ``readOnly: true`` (``requested``). The host admits the restriction (the child's
``currentAccess().readOnly`` is true, DELEG-1/3 hold, the sandbox and Bash treat it as read-only), so it
is a read-only sub-agent.

What the host does: it decides what a child is offered (tool list, catalog, payload, and what it may
call) from the host's own delegation flag and the parent's restrictions only, so such a child receives
and may call every tool, read-only or not. Children delegated read-only by the host, children of
read-only parents and Plan turns' children are the reference host's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import SessionView, in_scope
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "RO-5"


class RequestedReadOnlyOffersAllSession(Session):
    _offer_all = False

    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        child._offer_all = bool(  # type: ignore[attr-defined]
            not read_only and not self.restrictions.read_only and (requested or {}).get("readOnly")
        )
        return child

    def view(self) -> SessionView:
        view = super().view()
        return replace(view, read_only_child=False) if self._offer_all else view

    def _lookup(self, name: str) -> Registration | None:
        if not self._offer_all:
            return super()._lookup(name)
        reg = self.host.registry.get(name)
        if reg is None or not in_scope(reg, self.view()):
            return None
        return reg


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=RequestedReadOnlyOffersAllSession)
