"""DELEG-3 broken, on the plugin's side: the access a plugin reads (``ctx.currentAccess()`` inside a
tool's execute) is built from the calling turn's own mode, and a delegated child's own turn starts in
Build, so plugin code running in a read-only child of a Plan turn reads ``readOnly`` and ``planMode``
false. The host's own enforcement (its sandbox, its answer to ``current_access``) keeps both, but a
plugin constructing access for a further child from what it read clears them: the host handed it
cleared restrictions."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.context import active_call
from reference_host.registry import RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "DELEG-3"


class TurnModeContext(RegistrationContext):
    def current_access(self) -> dict[str, Any]:
        access = super().current_access()
        call = active_call()
        if call is not None and call.session.parent is not None:
            own_turn_is_plan = call.session.restrictions.plan_turn
            access = {**access, "readOnly": own_turn_is_plan, "planMode": own_turn_is_plan}
        return access


def factory() -> ReferenceHostAdapter:
    return context_mutant(TurnModeContext)
