"""REASON-3 broken: external schemas are rebuilt with the reason field added."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from reference_host.schemas import with_reason
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-3"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external and isinstance(entry["parameters"], dict):
            entry["parameters"] = with_reason(entry["parameters"])
        return entry


def factory() -> Adapter:
    return Adapter()
