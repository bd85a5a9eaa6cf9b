"""DIAG-3 broken: provider payload entries carry the registration's origin and owning plugin."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "DIAG-3"


class Adapter(RewriteTools):
    payload_only = True

    def rewrite(self, registration: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        return {**entry, "external": registration.external, "plugin": registration.plugin}


def factory() -> Adapter:
    return Adapter()
