"""The wire protocol's vocabulary: version, methods, which capability covers which method, schemas.

One JSON object per line in each direction (UTF-8, ``\\n``-terminated). The kit writes requests
``{"seq", "method", "params"}`` to the host's stdin; the host writes one answer per request to its
stdout, ``{"seq", "result"}`` or ``{"seq", "error": {"kind", "message", ...}}``, in order. The
message schemas are the JSON files beside this module (``schemas/<method>.json``, shared shapes in
``schemas/common.json``); docs/wire-protocol.md is the prose.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jsonschema
from referencing import Registry, Resource

from pytest_toolconformance.host.contract import ERROR_KINDS, WIRE_METHODS

#: The protocol version this kit speaks. A host answers the hello with the version it will speak;
#: a host that cannot speak this one is reported, never guessed at.
PROTOCOL_VERSION = 1

SCHEMAS_DIR = Path(__file__).with_name("schemas")

#: Requests that mirror the adapter contract, in contract order; ``hello`` and ``stop`` frame them.
CONTRACT_METHODS: tuple[str, ...] = tuple(m.name for m in WIRE_METHODS)
#: Every request name on the wire, framed by ``hello`` and ``stop`` (:data:`.contract.METHODS` are the
#: adapter's method declarations, of which these are the names).
REQUESTS: tuple[str, ...] = ("hello", *CONTRACT_METHODS, "stop")

#: Which declared capabilities let the kit send a method: any one of them will do. A method missing
#: here (hello, reset, stop) is always sent (the declaration: :class:`~..contract.HostAdapter`).
METHOD_CAPABILITIES: dict[str, frozenset[str]] = {m.name: m.needs for m in WIRE_METHODS if m.needs}

#: Requests that build host state and are replayed, in order, into a restarted host. The pure
#: reads (compose, current_access, current_identity) are not; reset empties the log.
STATE_METHODS = frozenset(m.name for m in WIRE_METHODS if m.builds_state)

#: Methods whose result names a new session (mapped across a restart).
SESSION_RESULT_METHODS = frozenset(m.name for m in WIRE_METHODS if m.new_session)

#: Error kinds a contract method returns to the suites as ``{"error": ...}``; the wire-only kinds
#: ``bad-request`` and ``internal`` are protocol faults.
CONTRACT_ERROR_KINDS = frozenset(ERROR_KINDS)
WIRE_ERROR_KINDS = frozenset({"bad-request", "internal"})

_BASE = "https://pytest-toolconformance.invalid/wire/1/"


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema document ``schemas/<name>.json``."""
    return json.loads((SCHEMAS_DIR / f"{name}.json").read_text("utf-8"))


@cache
def registry() -> Registry:
    resources = [
        (f"{_BASE}{path.name}", Resource.from_contents(json.loads(path.read_text("utf-8"))))
        for path in sorted(SCHEMAS_DIR.glob("*.json"))
    ]
    return Registry().with_resources(resources)


def _inline(node: Any, base: str) -> Any:
    """``node`` with every ``$ref`` replaced by what it points at. The schemas are not recursive and
    use ``$ref`` alone in its object, so this is exact; it makes validating an answer several times
    faster than resolving references through the registry on every call."""
    if isinstance(node, list):
        return [_inline(item, base) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = node["$ref"]
        document = ref.partition("#")[0]
        return _inline(registry().resolver(base).lookup(ref).contents, urljoin(base, document) if document else base)
    return {key: _inline(value, base) for key, value in node.items()}


@cache
def validator(name: str, part: str) -> jsonschema.protocols.Validator:
    """A validator for ``schemas/<name>.json#/$defs/<part>`` (part: params, result, request, response)."""
    return jsonschema.Draft202012Validator(_inline({"$ref": f"{name}.json#/$defs/{part}"}, _BASE))


def first_problem(name: str, part: str, instance: Any) -> str | None:
    """The first way ``instance`` breaks the schema, as "at /path: message", or None."""
    check = validator(name, part)
    if check.is_valid(instance):
        return None
    best = jsonschema.exceptions.best_match(check.iter_errors(instance))
    if best is None:  # pragma: no cover - is_valid said there is one
        return "invalid"
    where = "/" + "/".join(str(p) for p in best.absolute_path)
    return f"at {where}: {best.message[:300]}"



def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol line: compact JSON, UTF-8, non-ASCII unescaped but for U+2028 and U+2029,
    newline-terminated.

    The two line and paragraph separators are escaped (JSON allows ``\\u2028``): some readers split
    lines at them (Bun's readline does), which would cut a request in two.
    """
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode("utf-8") + b"\n"
