"""DIAG-1 broken, cell "the provider payload keeps the real names": the host redacts external tool names
once, in the composition it sends to the provider, instead of in a separate projection for the cache
diagnostics, so the provider payload names an external tool ``<external-tool>`` and the model cannot
call it by its name. The diagnostics are redacted as on the reference host; the model's tool list and
the catalog keep the real names."""

from __future__ import annotations

from typing import Any

from reference_host.composition import REDACTED_TOOL
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "DIAG-1"
ALSO = {
    "DIAG-3": "their cases find a tool's payload entry by its name, which this host redacts for external tools",
    "CAP-1": (
        "their cases find the external tool's description in the provider payload by its name, which this host redacts"
    ),
    "CAP-2": (
        "their cases find the external tool's definition in the provider payload by its name, which this host redacts"
    ),
    "REASON-3": (
        "their cases find the external tool's schema in the provider payload by its name, which this host redacts"
    ),
}


class Adapter(RewriteTools):
    payload_only = True

    def rewrite(self, registration: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        return {**entry, "name": REDACTED_TOOL} if registration.external else dict(entry)


def factory() -> Adapter:
    return Adapter()
