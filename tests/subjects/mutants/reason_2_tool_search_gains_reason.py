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
from reference_host.registry import Registration
from reference_host.schemas import with_reason
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-2"


class LoaderGainsReason(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if entry["name"] == "ToolSearch":
            entry["parameters"] = with_reason(entry["parameters"])
        return entry


def factory() -> ReferenceHostAdapter:
    return LoaderGainsReason()
