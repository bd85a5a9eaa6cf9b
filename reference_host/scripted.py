"""Scripted plugins: plugins described as plain data, interpreted by this host.

The adapter contract describes test plugins as JSON so that a host in any language can build
them with its own plugin API. This module is the reference host's interpreter; the format is
documented in docs/adapter-contract.md and validated by ``scripted-plugin.schema.json`` in the kit.

A ``mutate`` step's ``set`` and ``delete`` keys are top-level parameter names, or JSON Pointers
(RFC 6901, starting with ``/``) into nested objects and arrays, changed in place; ``/a/-`` appends.
A pointer whose path does not exist changes nothing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Any

from .context import active_call
from .errors import PluginLoadError
from .tools import define_tool, text_result
from .transport import is_transport_failure, mark_transport_failure

_OPTION_NAMES = {
    "external": "external",
    "ownerUserId": "owner_user_id",
    "projectId": "project_id",
    "platform": "platform",
}


class ScriptedError(Exception):
    """The error a scripted ``throw`` step raises."""


def _observe(kind: str, value: Any) -> None:
    call = active_call()
    if call is not None:
        call.session.observations.append({"op": kind, "value": value})


def transport_probe(
    mark: Callable[[BaseException], Any] = mark_transport_failure,
    is_tagged: Callable[[Any], bool] = is_transport_failure,
) -> dict[str, bool]:
    """ERR-5 facts about a transport tag (``mark``, ``is_tagged``): this host's by default."""
    tagged = ScriptedError("probe")
    returned = mark(tagged)
    survived = False
    try:
        try:
            raise tagged
        except ScriptedError:
            raise
    except ScriptedError as again:
        survived = is_tagged(again)
    return {
        "returnsSameError": returned is tagged,
        "taggedIsTransport": is_tagged(tagged),
        "plainIsTransport": is_tagged(ScriptedError("plain")),
        "noneIsTransport": is_tagged(None),
        "stringIsTransport": is_tagged("transport"),
        "objectIsTransport": is_tagged({"transport": True}),
        "survivesRethrow": survived,
    }


def _pointer(key: str) -> list[str] | None:
    """The JSON Pointer (RFC 6901) tokens of a ``mutate`` key, or None for a plain top-level name."""
    if not key.startswith("/"):
        return None
    return [t.replace("~1", "/").replace("~0", "~") for t in key[1:].split("/")]


def _parent(params: Any, tokens: list[str]) -> Any:
    """The container a pointer's last token addresses, or None where the path does not exist."""
    node = params
    for token in tokens[:-1]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def set_at(params: Any, key: str, value: Any) -> None:
    """Set in place, so that a nested mutation changes the very objects the handler was given
    (NAME-7 checks that none of it reaches the journal). ``/a/-`` appends to the array ``a``."""
    tokens = _pointer(key)
    if tokens is None:
        params[key] = value
        return
    node, last = _parent(params, tokens), tokens[-1]
    if isinstance(node, dict):
        node[last] = value
    elif isinstance(node, list) and last == "-":
        node.append(value)
    elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = value


def delete_at(params: Any, key: str) -> None:
    """Delete in place: a top-level name, or what a JSON Pointer addresses (nothing where it does not exist)."""
    tokens = _pointer(key)
    if tokens is None:
        params.pop(key, None)
        return
    node, last = _parent(params, tokens), tokens[-1]
    if isinstance(node, dict):
        node.pop(last, None)
    elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
        del node[int(last)]


async def run_steps(steps: list[Mapping[str, Any]], params: dict[str, Any] | None, ctx: Any) -> dict[str, Any]:
    """Run handler (or register) steps; returns the tool result."""
    details: dict[str, Any] = {}
    for step in steps:
        op = step.get("op")
        if op == "text":
            return text_result(str(step.get("text", "")), details)
        if op == "details":
            details.update(step.get("details") or {})
        elif op == "echo":
            _observe("params", json.loads(json.dumps(params)))
            return text_result(json.dumps(params, sort_keys=True, ensure_ascii=False), details)
        elif op == "mutate" and params is not None:
            for key in step.get("delete") or []:
                delete_at(params, key)
            for key, value in (step.get("set") or {}).items():
                set_at(params, key, value)
        elif op == "throw":
            raise ScriptedError(str(step.get("message", "scripted failure")))
        elif op == "throw_transport":
            raise mark_transport_failure(ScriptedError(str(step.get("message", "connect ECONNREFUSED"))))
        elif op == "sleep":
            await asyncio.sleep(float(step.get("seconds", 0)))
        elif op == "hang":
            await asyncio.sleep(3600)
        elif op == "identity":
            _observe("identity", ctx.current_identity())
        elif op == "access":
            _observe("access", ctx.current_access())
        elif op == "account":
            _observe("account", ctx.current_account_user_id())
        elif op == "policy":
            call = active_call()
            if call is not None:
                call.session.host.set_policy(str(step["account"]), step.get("changes") or {})
        elif op == "transport_probe":
            probe = transport_probe()
            _observe("transport_probe", probe)
            return text_result(json.dumps(probe, sort_keys=True), details)
        elif op == "raw":
            return step.get("result")  # type: ignore[no-any-return]
        elif op == "image":
            return {
                "content": [
                    {"type": "image", "data": step.get("data", ""), "mimeType": step.get("mimeType", "image/png")}
                ],
                "details": details,
            }
        else:
            raise PluginLoadError(f"scripted step {op!r} is unknown", subject=str(op))
    return text_result("ok", details)


class ScriptedPlugin:
    """A plugin object built from a scripted plugin document."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        if not isinstance(document, Mapping) or not isinstance(document.get("name"), str):
            raise PluginLoadError("a scripted plugin needs a string 'name'", subject="scripted plugin")
        self.document = document
        self.__name__ = document["name"]

    @property
    def manifest(self) -> dict[str, Any]:
        manifest = dict(self.document.get("manifest") or {})
        manifest.setdefault("name", self.document["name"])
        return manifest

    async def register(self, ctx: Any) -> None:
        await run_steps(list(self.document.get("register") or []), None, ctx)
        for spec in self.document.get("tools") or []:
            steps = list(spec.get("handler") or [])

            def make_execute(steps: list[Mapping[str, Any]] = steps):
                async def execute(call_id: str, params: dict[str, Any]) -> dict[str, Any]:
                    return await run_steps(steps, params, ctx)

                return execute

            tool = define_tool(
                name=spec["name"],
                label=spec.get("label") or spec["name"],
                # A string description, empty included, is passed on as the plugin gave it.
                description=description
                if isinstance(description := spec.get("description"), str)
                else f"Scripted tool {spec['name']}.",
                parameters=spec.get("parameters") or {"type": "object", "properties": {}},
                execute=make_execute(),
            )
            options = {_OPTION_NAMES[k]: v for k, v in (spec.get("options") or {}).items() if k in _OPTION_NAMES}
            ctx.register_tool(tool, **options)
