"""Plumbing for the REG-5 mutants: add entries for names a manifest lists but nothing registered."""

from __future__ import annotations

from typing import Any

from reference_host.manifest import Manifest
from tests.subjects.mutants.base import AnswerMutant


def stub(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"{name} (declared)", "parameters": {"type": "object", "properties": {}}}


class AdvertiseDeclared(AnswerMutant):
    """Adds, per installed manifest, the names :meth:`declared` picks: to the catalog, and unless
    ``deferred`` also to the tool list and the payload."""

    deferred = False

    def declared(self, manifest: Manifest, session: str) -> list[str]:
        return []

    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        listed = {entry["name"] for entry in answer["catalog"]}
        for plugin in registry.plugins():
            manifest = registry.manifest(plugin)
            for name in self.declared(manifest, session) if manifest else ():
                if registry.get(name) is not None or name in listed:
                    continue
                listed.add(name)
                answer["catalog"] = [
                    *answer["catalog"],
                    {"name": name, "deferred": self.deferred, "origin": "internal", "readOnly": False, "owner": plugin},
                ]
                if not self.deferred:
                    answer["tools"] = [*answer["tools"], stub(name)]
                    answer["payload"] = {
                        **answer["payload"],
                        "tools": [*answer["payload"]["tools"], {"type": "function", **stub(name)}],
                    }
        return answer
