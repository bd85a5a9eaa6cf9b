"""REASON-2 broken: ToolSearch gains ``reason``.

Rule (REASON-2): Bash and ToolSearch never gain it. Cell: the core ToolSearch tool (the loader),
through the compose path (model tool list and provider payload). This host's exclusion set only
holds Bash (the loader was added later and nobody updated ``isReasonExcluded``), so ToolSearch is
advertised with the optional ``reason`` field like any internal tool. Bash stays excluded; every
other tool is advertised as the reference host does.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import Composition
from reference_host.schemas import with_reason
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "REASON-2"


class LoaderGainsReason(Session):
    def compose(self) -> Composition:
        comp = super().compose()

        def fix(entry: Any) -> dict[str, Any]:
            entry = dict(entry)
            if entry["name"] == "ToolSearch":
                entry["parameters"] = with_reason(entry["parameters"])
            return entry

        comp.tools = [fix(e) for e in comp.tools]
        comp.payload = {**comp.payload, "tools": [fix(e) for e in comp.payload["tools"]]}
        return comp


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=LoaderGainsReason)
