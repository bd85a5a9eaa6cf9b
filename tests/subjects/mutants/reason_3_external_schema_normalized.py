"""REASON-3 broken: external schemas are "normalized" (keys sorted, a missing type filled in) on the way
out: not reconstructed with reason, but rebuilt all the same."""

from __future__ import annotations

import json
from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-3"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external and isinstance(entry["parameters"], dict) and "properties" in entry["parameters"]:
            normalized = json.loads(json.dumps(entry["parameters"], sort_keys=True))
            normalized.setdefault("type", "object")
            entry["parameters"] = normalized
        return entry


def factory() -> Adapter:
    return Adapter()
