"""Plumbing for the ERR-5 mutants: scripted plugins built against a host's own transport helpers.
:class:`TransportPlugin` runs the reference interpreter and registration, with a given ``mark`` and
``is_tagged`` for the transport steps and the host's reading of a throw; :func:`transport_mutant` installs it."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.errors import HostError
from reference_host.facade import as_error
from reference_host.scripted import ScriptedError, ScriptedPlugin, _observe, run_steps, transport_probe
from reference_host.tools import Tool, text_result
from reference_host.transport import mark_transport_failure as host_tag

#: ``markTransportFailure(error)``: this host's way of tagging an error, returning what a plugin throws.
Mark = Callable[[BaseException], BaseException]
#: ``isTransportFailure(x)``: this host's reading of the tag, for plugins and for its own reading of a throw.
IsTagged = Callable[[Any], bool]

_CONTINUE = object()


class TransportPlugin(ScriptedPlugin):
    """The reference interpreter, with this host's ``markTransportFailure`` / ``isTransportFailure``
    for the two steps that use them; every other step runs as the reference runs it."""

    def __init__(self, document: Mapping[str, Any], mark: Mark, is_tagged: IsTagged) -> None:
        super().__init__(document)
        self.mark = mark
        self.is_tagged = is_tagged

    async def _run(self, steps: list[Mapping[str, Any]], params: dict[str, Any] | None, ctx: Any) -> Any:
        details: dict[str, Any] = {}
        for step in steps:
            op = step.get("op")
            if op == "details":
                details.update(step.get("details") or {})
            elif op == "throw_transport":
                raise self.mark(ScriptedError(str(step.get("message", "connect ECONNREFUSED"))))
            elif op == "transport_probe":
                probe = transport_probe(self.mark, self.is_tagged)
                _observe("transport_probe", probe)
                return text_result(json.dumps(probe, sort_keys=True), details)
            else:
                # One reference step, with the details gathered so far; the sentinel says it did not return.
                result = await run_steps(
                    [{"op": "details", "details": details}, step, {"op": "raw", "result": _CONTINUE}], params, ctx
                )
                if result is not _CONTINUE:
                    return result
        return await run_steps([{"op": "details", "details": details}], params, ctx)

    def _execute(self, spec: Mapping[str, Any], ctx: Any) -> Callable[[str, dict[str, Any]], Any]:
        steps = list(spec.get("handler") or [])

        async def execute(call_id: str, params: dict[str, Any]) -> dict[str, Any]:
            try:
                return await self._run(steps, params, ctx)
            except BaseException as exc:
                # The host reads a throw with the same predicate it gives plugins.
                if self.is_tagged(exc):
                    host_tag(exc)
                raise

        return execute

    async def register(self, ctx: Any) -> None:
        await self._run(list(self.document.get("register") or []), None, ctx)
        specs = iter(self.document.get("tools") or [])

        def register_tool(tool: Tool, **options: Any) -> Any:
            # The reference registers one tool per spec, in order: this one's handler runs through _run.
            return ctx.register_tool(replace(tool, execute=self._execute(next(specs), ctx)), **options)

        # The reference builds and registers the tools (their defaults, their options); the register
        # steps, already run above, are left out of its copy of the document.
        tools_only = ScriptedPlugin({**self.document, "register": []})
        await tools_only.register(SimpleNamespace(register_tool=register_tool))


def transport_mutant(helpers: Callable[[Host], tuple[Mark, IsTagged]]) -> ReferenceHostAdapter:
    """An adapter that builds scripted plugins against the ``(mark, is_tagged)`` that ``helpers``
    gives for its host (asked at each install)."""

    class TransportHelpersAdapter(ReferenceHostAdapter):
        def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
            mark, is_tagged = helpers(self.host)
            try:
                scripted = TransportPlugin(plugin, mark, is_tagged)
                return self.host.install_plugin(scripted, manifest=scripted.manifest).as_dict()
            except HostError as exc:
                return as_error(exc)

    return TransportHelpersAdapter()
