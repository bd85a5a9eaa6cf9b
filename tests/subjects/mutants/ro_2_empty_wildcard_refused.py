"""RO-2 broken, in the cell "with the mcp__* entry: accepted": the host takes a wildcard on a plugin of
internal tools for a misdeclaration, so a manifest declaring ``readOnlyTools: ['mcp__*']`` with the matching
``provides.tools`` entry is refused when the plugin registers tools and none of them is external (an MCP
bridge whose servers are not connected yet, with its status tool). The entry is the only thing the rule
asks for; a plugin with external tools, or with no tool yet, is accepted, and the wildcard without its
entry is refused, as in the reference host."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.errors import ManifestError
from reference_host.manifest import EXTERNAL_WILDCARD
from reference_host.registry import RegistrationContext

RULE = "RO-2"


class _NonEmptyWildcard:
    """The plugin, its ``register`` followed by a look at what it staged."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.__name__ = getattr(inner, "__name__", None) or type(inner).__name__

    def register(self, ctx: RegistrationContext) -> Any:
        result = self.inner.register(ctx)
        if inspect.isawaitable(result):
            # An async register(ctx) has staged nothing until the host awaits it.
            async def registered() -> Any:
                value = await result
                _refuse_internal_only(ctx)
                return value

            return registered()
        _refuse_internal_only(ctx)
        return result


def _refuse_internal_only(ctx: RegistrationContext) -> None:
    staged = ctx.staged()
    if staged and not any(item.external for item in staged):
        raise ManifestError(
            f"manifest field 'provides/readOnlyTools': {EXTERNAL_WILDCARD!r} declares no tool: the plugin "
            "registered internal tools only",
            rule="RO-2",
            subject="provides/readOnlyTools",
        )


class NonEmptyWildcardHost(Host):
    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        read_only = ((manifest or {}).get("provides") or {}).get("readOnlyTools") or []
        if EXTERNAL_WILDCARD in read_only and callable(getattr(plugin, "register", None)):
            plugin = _NonEmptyWildcard(plugin)
        return super().install_plugin(plugin, manifest=manifest, name=name)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=NonEmptyWildcardHost)
