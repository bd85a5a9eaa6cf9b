"""DIAG-3 broken: provider payload entries carry the registration's origin and owning plugin."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants.base import PayloadMutant

RULE = "DIAG-3"


class Adapter(PayloadMutant):
    def payload_entry(self, entry: dict[str, Any], registration: Any) -> dict[str, Any]:
        return {**entry, "external": registration.external, "plugin": registration.plugin}


def factory() -> Adapter:
    return Adapter()
