"""DELEG-1 broken, on the plugin's side of a Plan turn: the access descriptor a plugin reads
(``ctx.currentAccess()`` inside a tool's execute) carries ``readOnly`` only for a delegated read-only
origin, taking the Plan restriction for the host's own business (it keeps ``planMode``). So a plugin tool
running on a Plan turn (a host or a Project conversation's own Plan turn, not a child) reads ``readOnly:
false``, although the host's own answer to ``current_access`` and its sandbox keep the restriction.

The rule's sentence: "currentAccess().readOnly is true for an admitted Plan restriction and for an immutable
delegated read-only origin" (seed: "currentAccess().readOnly carries both an admitted Plan restriction and
the immutable delegated read-only origin").
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.context import active_call
from reference_host.registry import RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "DELEG-1"


class OriginOnlyContext(RegistrationContext):
    def current_access(self) -> dict[str, Any]:
        access = super().current_access()
        call = active_call()
        if call is not None:
            restrictions = call.session.restrictions
            access = {**access, "readOnly": restrictions.delegated_read_only}
        return access

    currentAccess = current_access  # noqa: N815 - the JS name, as the reference context has it


def factory() -> ReferenceHostAdapter:
    return context_mutant(OriginOnlyContext)
