"""Breaks DIAG-2: the diagnostics projection redacts the names of deferred local tools.

Cell: a deferred (``deferLoading``) internal tool, in a host with no external registrations. The
broken host treats a tool that is not loaded into the prompt like an external one in the cache
diagnostics ("its name is not part of the cached prefix"), so the deferred local tool's name comes
out as the redaction placeholder. Loaded local tools, namespaces, the catalog, the model tool list
and the payload are the reference host's.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import REDACTED_TOOL, Composition
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "DIAG-2"


class DeferredNamesRedactedSession(Session):
    def compose(self) -> Composition:
        composition = super().compose()
        diagnostics = composition.diagnostics
        tools: list[dict[str, Any]] = []
        extra = 0
        for entry in diagnostics["tools"]:
            if not entry["loaded"] and entry["name"] != REDACTED_TOOL:
                tools.append({**entry, "name": REDACTED_TOOL})
                extra += 1
            else:
                tools.append(dict(entry))
        redacted = dict(diagnostics["redacted"])
        redacted["tools"] = redacted["tools"] + extra
        composition.diagnostics = {**diagnostics, "tools": tools, "redacted": redacted}
        return composition


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=DeferredNamesRedactedSession)
