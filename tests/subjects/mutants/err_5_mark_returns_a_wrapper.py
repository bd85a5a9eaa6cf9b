"""ERR-5 broken, cell "markTransportFailure returns the error it tags; the tag survives a rethrow": the
host's markTransportFailure wraps the error in a new tagged TransportFailure (the original as its
cause) and returns the wrapper, leaving the error it was given untagged. ``throw
markTransportFailure(error)`` still throws a tagged error, which the host classifies as on the reference
host; but the error a plugin tagged and keeps (to rethrow later) is not a transport failure."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from reference_host.context import active_call
from reference_host.scripted import ScriptedPlugin, transport_probe
from reference_host.tools import text_result
from reference_host.transport import mark_transport_failure
from tests.subjects.mutants.base import AnswerMutant

RULE = "ERR-5"


class TransportFailure(Exception):
    """The wrapper this host's markTransportFailure returns."""


def wrapping_mark(error: BaseException) -> BaseException:
    wrapper = TransportFailure(str(error))
    wrapper.__cause__ = error
    return mark_transport_failure(wrapper)


async def _probe(call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """The scripted ``transport_probe`` step, run with this host's helpers."""
    probe = transport_probe(mark=wrapping_mark)
    call = active_call()
    if call is not None:
        call.session.observations.append({"op": "transport_probe", "value": probe})
    return text_result(json.dumps(probe, sort_keys=True))


class WrappingHelpersPlugin(ScriptedPlugin):
    """A scripted plugin whose probing tools get this host's transport helpers."""

    async def register(self, ctx: Any) -> None:
        probing = {
            spec["name"]
            for spec in self.document.get("tools") or []
            if any(step.get("op") == "transport_probe" for step in spec.get("handler") or [])
        }
        register_tool = ctx.register_tool

        def register_with_helpers(tool: Any, **options: Any) -> bool:
            return register_tool(replace(tool, execute=_probe) if tool.name in probing else tool, **options)

        ctx.register_tool = register_with_helpers
        await super().register(ctx)


class Adapter(AnswerMutant):
    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        probing = any(
            step.get("op") == "transport_probe"
            for spec in (plugin.get("tools") or [])
            if isinstance(spec, dict)
            for step in spec.get("handler") or []
            if isinstance(step, dict)
        )
        if not probing:
            return super().install_plugin(plugin)
        scripted = WrappingHelpersPlugin(plugin)
        return self.host.install_plugin(scripted, manifest=scripted.manifest).as_dict()


def factory() -> Adapter:
    return Adapter()
