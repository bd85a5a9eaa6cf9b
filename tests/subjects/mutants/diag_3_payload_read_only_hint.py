"""DIAG-3 broken, cell "scope and read-only classification": the host marks each read-only tool in the
provider payload with MCP's ``annotations: {readOnlyHint: true}`` (taken from its read-only
classification), and every other tool with ``readOnlyHint: false``. Registration metadata, the
read-only classification included, is never inserted into provider payloads. Nothing else changes."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "DIAG-3"


class Adapter(RewriteTools):
    payload_only = True

    def rewrite(self, registration: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        return {**entry, "annotations": {"readOnlyHint": registration.read_only}}


def factory() -> Adapter:
    return Adapter()
