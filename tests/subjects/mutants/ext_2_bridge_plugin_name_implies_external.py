"""EXT-2 broken: a plugin named like the MCP bridge has every registration taken as external.

Rule (EXT-2): origin comes from the ``external`` option alone: a name never implies it, and an
explicit false stays internal even with an ``mcp__`` prefix. Cell: the *plugin's* name, on the
registration path: a plugin whose name starts with ``mcp`` (as the bundled bridge's does) gets
``external: true`` for every tool it registers, whatever the option says (omitted or an explicit
``false``), because this host "trusts the bridge" to author external schemas. A non-boolean option is
still refused (EXT-1) and every other plugin's registrations keep the origin their option gives.
Everything downstream (catalog origin, caps, ``reason``, validation, plan mode) follows the wrong
origin, as it would in a real host. An omitted option reads as an explicit ``false`` does in every
plugin, so the normalization holds and the plugin's name is what decides: EXT-2's, not EXT-1's
(docs/readings.md, "EXT-2 (who registers)").
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import _UNSET, RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "EXT-2"


class BridgeNameContext(RegistrationContext):
    def register_tool(self, tool: Any, *, external: Any = _UNSET, **options: Any) -> bool:
        if self.plugin_name.lower().startswith("mcp") and (external is _UNSET or isinstance(external, bool)):
            external = True
        return super().register_tool(tool, external=external, **options)

    registerTool = register_tool  # noqa: N815


def factory() -> ReferenceHostAdapter:
    return context_mutant(BridgeNameContext)
