"""REG-5 broken in the cell "names in deferLoading and showOutput lists": the catalog's deferred
entries are built from the manifests' ``deferLoading`` lists, so a name listed there that no plugin
registered shows in the catalog as a deferred tool (the model can search for it, not call it)."""

from __future__ import annotations

from reference_host.manifest import Manifest
from tests.subjects.mutants._manifest_names_support import AdvertiseDeclared

RULE = "REG-5"


class Adapter(AdvertiseDeclared):
    deferred = True

    def declared(self, manifest: Manifest, session: str) -> list[str]:
        names = manifest.defer_loading
        return [] if isinstance(names, bool) else [n for n in names if not n.endswith("*")]


def factory() -> Adapter:
    return Adapter()
