"""REASON-1 broken: scoped internal tools are advertised without ``reason``.

Rule (REASON-1): *every* internal tool's advertised schema gains an optional string ``reason``.
Cell: plugin tools registered with a scope option (``ownerUserId``, ``projectId`` or ``platform``),
through the compose path. This host builds a session's scoped contributions in a separate
per-session pass that copies the registered schema as it is and forgets ``withReason``; instance-wide
internal tools, core tools and external tools are advertised exactly as the reference host does.
The model tool list and the provider payload agree (both lack ``reason`` for scoped tools); calls
are untouched.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-1"


class ScopedWithoutReason(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            return entry
        if reg.owner_user_id is None and reg.project_id is None and reg.platform is None:
            return entry
        entry["parameters"] = reg.tool.parameters  # the registered schema, as registered
        return entry


def factory() -> ReferenceHostAdapter:
    return ScopedWithoutReason()
