"""MANIFEST-3 broken, cell "listed, lost to a name collision": the host's audit counts a tool the plugin
registered under a name another plugin already owns as registered, so a listed tool that lost the
collision is not reported. The loser's registration is rejected (EXT-3): it registered nothing, and
provides.tools lists a tool the plugin does not have."""

from __future__ import annotations

from typing import Any

from tests.subjects.mutants._manifest_audit_support import RefusalCountsAsRegistered

RULE = "MANIFEST-3"


class Adapter(RefusalCountsAsRegistered):
    def counted(self, refusal: dict[str, Any]) -> bool:
        return refusal["rule"] == "EXT-3"  # a collision loser


def factory() -> Adapter:
    return Adapter()
