"""EXT-1 broken in the cell "true: accepted, external": the host reads RO-2's "the wildcard needs the
matching provides.tools entry" as a condition on external registrations themselves, and refuses
``external: true`` unless the plugin's manifest lists the tool (or ``mcp__*``) in ``provides.tools``.
A plugin that declares its external tools, as the bundled MCP bridge does, registers them; one
without that declaration cannot register an external tool at all, although ``true`` is a boolean."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.manifest import EXTERNAL_WILDCARD
from reference_host.registry import Refusal, RegistrationContext

RULE = "EXT-1"


class DeclaredOnlyContext(RegistrationContext):
    declared: frozenset[str] = frozenset()

    def _check(self, tool: Any, label: str, external: Any, *rest: Any) -> Refusal | None:
        refusal = super()._check(tool, label, external, *rest)
        if refusal is None and external is True and not {tool.name, EXTERNAL_WILDCARD} & self.declared:
            return Refusal(label, "EXT-1", f"external tool {tool.name!r} is not declared in provides.tools")
        return refusal


class _Declaring:
    """The plugin, with its registration context re-classed to one that knows the manifest."""

    def __init__(self, inner: Any, declared: frozenset[str]) -> None:
        self.inner, self.declared = inner, declared
        self.__name__ = getattr(inner, "__name__", None) or type(inner).__name__

    def register(self, ctx: RegistrationContext) -> Any:
        ctx.__class__ = DeclaredOnlyContext
        ctx.declared = self.declared  # type: ignore[attr-defined]
        return self.inner.register(ctx)


class DeclaredOnlyHost(Host):
    def install_plugin(self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None) -> Any:
        declared = frozenset(((manifest or {}).get("provides") or {}).get("tools") or ())
        if callable(getattr(plugin, "register", None)):
            plugin = _Declaring(plugin, declared)
        return super().install_plugin(plugin, manifest=manifest, name=name)


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=DeclaredOnlyHost)
