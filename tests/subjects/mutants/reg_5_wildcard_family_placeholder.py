"""REG-5 broken in the cell "provides mcp__* with no external registration": a plugin that declares
the ``mcp__*`` family in provides.tools gets a deferred catalog entry for that family, so ToolSearch
"can find the MCP tools once the bridge connects"; with no external registration there is an entry
in the catalog that nothing registered."""

from __future__ import annotations

from reference_host.manifest import EXTERNAL_WILDCARD, Manifest
from tests.subjects.mutants._manifest_names_support import AdvertiseDeclared

RULE = "REG-5"


class Adapter(AdvertiseDeclared):
    deferred = True

    def declared(self, manifest: Manifest, session: str) -> list[str]:
        return [EXTERNAL_WILDCARD] if EXTERNAL_WILDCARD in manifest.tools else []


def factory() -> Adapter:
    return Adapter()
