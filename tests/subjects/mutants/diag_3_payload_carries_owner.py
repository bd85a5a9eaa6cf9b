"""Breaks DIAG-3: the provider payload's tool entries carry their owner.

Cell: the *owner* part of the registration metadata, for every tool (core and plugin). The broken
host tags each function definition it sends the provider with the plugin that owns it (``"owner":
"<plugin>"``, ``"core"`` for core tools) so that it can route a provider's tool call back without a
registry lookup. The model tool list, the catalog and the diagnostics are the reference host's; only
the provider payload gains the key.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "DIAG-3"


class OwnerInPayload(RewriteTools):
    payload_only = True

    def rewrite(self, reg: Registration, entry: dict) -> dict:
        return {**entry, "owner": reg.plugin}


def factory() -> ReferenceHostAdapter:
    return OwnerInPayload()
