"""REG-5 broken in the cell "an exact provides.readOnlyTools name ... in read-only children": a
read-only child's tool list is built from the read-only declarations (RO-5: "the declaration decides
what read-only sub-agents receive"), so an exact ``readOnlyTools`` name that no plugin registered is
offered to read-only children as a tool. Build and Plan turns of the parent list only registrations."""

from __future__ import annotations

from reference_host.manifest import Manifest
from tests.subjects.mutants._manifest_names_support import AdvertiseDeclared

RULE = "REG-5"


class Adapter(AdvertiseDeclared):
    def declared(self, manifest: Manifest, session: str) -> list[str]:
        if not self.host.session(session).restrictions.delegated_read_only:
            return []
        return sorted(manifest.exact_read_only)


def factory() -> Adapter:
    return Adapter()
