"""MANIFEST-3 broken, cell "listed, registration refused": the host's audit compares provides.tools with
the names the plugin passed to registerTool, not with what was registered, so a listed tool whose
registration the host refused (a bad schema, a bad option) is not reported as listed-but-unregistered.
Registration is the live source: a refused registration registered nothing. Collision losers and
tools never registered at all are reported as on the reference host."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants._manifest_audit_support import RefusalCountsAsRegistered

RULE = "MANIFEST-3"


class Adapter(RefusalCountsAsRegistered):
    def counted(self, refusal: dict[str, Any]) -> bool:
        return refusal["rule"] != "EXT-3"  # a refused registration


def factory() -> Adapter:
    return Adapter()
