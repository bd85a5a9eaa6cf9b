"""ERR-5, broken: ``markTransportFailure(error)`` tags the error's class, not only the error it is
given, so every later error of that class is a transport failure too.

This host's transport helper classifies by type as a shortcut: once a plugin has marked one error of
a class (a socket error, say), it remembers the class, and ``isTransportFailure`` accepts any error of
a remembered class without looking for the tag. The error it was given is tagged and returned as
itself, a tagged error stays tagged through a rethrow, and non-errors are never transport failures;
but an untagged error (a bad-argument failure the plugin meant to flatten into an answer) of the same
class as one marked earlier, in this call or any earlier call on the host, now counts as a transport
failure, for the plugin's own catch-all and for the host's reading of a throw alike.

Cell of the sentence: "``isTransportFailure(x)`` is true for tagged errors only", with ``x`` an
untagged error whose class was marked before (the tag leaks from the error given to its siblings).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.errors import HostError
from reference_host.facade import as_error
from reference_host.scripted import ScriptedError, ScriptedPlugin, _observe, run_steps, transport_probe
from reference_host.tools import define_tool, text_result
from reference_host.transport import is_transport_failure as is_tagged_here
from reference_host.transport import mark_transport_failure as host_tag

RULE = "ERR-5"

_OPTION_NAMES = {
    "external": "external",
    "ownerUserId": "owner_user_id",
    "projectId": "project_id",
    "platform": "platform",
}
_CONTINUE = object()


class TransportTypes:
    """This host's ``elowen-plugin-shared/transport`` for one host: the broken part is that marking an
    error also remembers its class, and the predicate accepts any error of a remembered class."""

    def __init__(self) -> None:
        self.classes: set[type] = set()

    def mark(self, error: BaseException) -> BaseException:
        if not isinstance(error, BaseException):
            raise TypeError(f"[ERR-5] mark_transport_failure() takes an exception, got {type(error).__name__}")
        host_tag(error)  # the error it is given is tagged and returned, as the reference does
        self.classes.add(type(error))  # ...and its class is taken for a transport-failure class
        return error

    def is_tagged(self, value: Any) -> bool:
        return isinstance(value, BaseException) and (is_tagged_here(value) or type(value) in self.classes)


class _TransportPlugin(ScriptedPlugin):
    """The reference interpreter, with this host's ``markTransportFailure`` / ``isTransportFailure``
    for the two steps that use them; every other step runs as the reference runs it."""

    def __init__(self, document: Mapping[str, Any], transport: TransportTypes) -> None:
        super().__init__(document)
        self.mark: Callable[[BaseException], BaseException] = transport.mark
        self.is_tagged: Callable[[Any], bool] = transport.is_tagged

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

    async def register(self, ctx: Any) -> None:
        await self._run(list(self.document.get("register") or []), None, ctx)
        for spec in self.document.get("tools") or []:
            steps = list(spec.get("handler") or [])

            def make_execute(steps: list[Mapping[str, Any]] = steps):
                async def execute(call_id: str, params: dict[str, Any]) -> dict[str, Any]:
                    try:
                        return await self._run(steps, params, ctx)
                    except BaseException as exc:
                        # The host reads a throw with the same predicate it gives plugins.
                        if self.is_tagged(exc):
                            host_tag(exc)
                        raise

                return execute

            tool = define_tool(
                name=spec["name"],
                label=spec.get("label") or spec["name"],
                description=description
                if isinstance(description := spec.get("description"), str)
                else f"Scripted tool {spec['name']}.",
                parameters=spec.get("parameters") or {"type": "object", "properties": {}},
                execute=make_execute(),
            )
            options = {_OPTION_NAMES[k]: v for k, v in (spec.get("options") or {}).items() if k in _OPTION_NAMES}
            ctx.register_tool(tool, **options)


class TransportTypesAdapter(ReferenceHostAdapter):
    """Builds scripted plugins against this host's transport helpers (one set of classes per host)."""

    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        transport = self.host.__dict__.setdefault("_transport_failure_classes", TransportTypes())
        try:
            scripted = _TransportPlugin(plugin, transport)
            return self.host.install_plugin(scripted, manifest=scripted.manifest).as_dict()
        except HostError as exc:
            return as_error(exc)


def factory() -> ReferenceHostAdapter:
    return TransportTypesAdapter()
