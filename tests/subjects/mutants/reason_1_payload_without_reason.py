"""REASON-1 broken: the provider payload advertises internal tools without ``reason``.

Rule (REASON-1): every internal tool's advertised schema gains an optional string ``reason``.
Cell: the provider-payload path of composition. This host adds ``reason`` to the model tool list it
reports, but builds the provider request (``payload.tools``) from the registered schemas, so what is
actually sent to the provider for every internal tool (core and plugin) lacks ``reason``. A real host
gets this wrong when the request builder reads the registry instead of the composed definitions.
External tools, Bash and ToolSearch are untouched (they never had ``reason``).
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-1"


class PayloadFromRegistry(RewriteTools):
    payload_only = True

    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if reg.external:
            return entry
        own = reg.tool.parameters.get("properties") or {}
        props = dict(entry["parameters"].get("properties") or {})
        if "reason" in own or "reason" not in props:
            return entry
        del props["reason"]
        entry["parameters"] = {**entry["parameters"], "properties": props}
        return entry


def factory() -> ReferenceHostAdapter:
    return PayloadFromRegistry()
