"""ERR-5, broken: ``isTransportFailure(x)`` reads the tag off any value that carries it, not only
off errors that ``markTransportFailure`` tagged.

This host's plugin API tags a failure the JavaScript way, as a property (``error.transport = true``),
and its ``isTransportFailure`` is the usual optional-chaining one-liner, ``Boolean(x?.transport)``: a
plain object such as ``{transport: true}`` (a parsed JSON body, an options bag a plugin passes to its
catch-all) counts as a transport failure although nothing ever tagged it. Errors are still told apart
correctly (a plain error is not transport, a tagged one is, the tag survives a rethrow, ``mark``
returns the very error it was given), and the host's own reading of a throw agrees with the predicate
it hands plugins.

Cell of the sentence: "``isTransportFailure(x)`` is true for tagged errors only", with ``x`` a value
that is not an error at all (a plain object carrying the tag's key); the marking and the rethrow halves
stay right.
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
from reference_host.transport import mark_transport_failure as host_tag

RULE = "ERR-5"

_OPTION_NAMES = {
    "external": "external",
    "ownerUserId": "owner_user_id",
    "projectId": "project_id",
    "platform": "platform",
}
_CONTINUE = object()


def mark_transport_failure(error: BaseException) -> BaseException:
    """Tags the error it is given (as a property) and returns it, as the reference does."""
    if not isinstance(error, BaseException):
        raise TypeError(f"[ERR-5] mark_transport_failure() takes an exception, got {type(error).__name__}")
    error.transport = True  # type: ignore[attr-defined]
    return error


def is_transport_failure(value: Any) -> bool:
    """The broken predicate: ``Boolean(x?.transport)``, so any value carrying the key counts."""
    if isinstance(value, Mapping):
        return value.get("transport") is True
    return getattr(value, "transport", None) is True


class _TransportPlugin(ScriptedPlugin):
    """The reference interpreter, with this host's ``markTransportFailure`` / ``isTransportFailure``
    for the two steps that use them; every other step runs as the reference runs it."""

    mark: Callable[[BaseException], BaseException] = staticmethod(mark_transport_failure)
    is_tagged: Callable[[Any], bool] = staticmethod(is_transport_failure)

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


class PropertyTagAdapter(ReferenceHostAdapter):
    """Builds scripted plugins against this host's transport helpers."""

    def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
        try:
            scripted = _TransportPlugin(plugin)
            return self.host.install_plugin(scripted, manifest=scripted.manifest).as_dict()
        except HostError as exc:
            return as_error(exc)


def factory() -> ReferenceHostAdapter:
    return PropertyTagAdapter()
