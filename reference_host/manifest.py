"""Plugin manifests: validation against ``manifest.schema.json`` and the RO-2 wildcard rule."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import jsonschema

from .errors import ManifestError

#: The one wildcard ``provides.readOnlyTools`` accepts (RO-1).
EXTERNAL_WILDCARD = "mcp__*"


@cache
def manifest_schema() -> dict[str, Any]:
    """The JSON Schema of a plugin manifest."""
    return json.loads(resources.files(__package__).joinpath("manifest.schema.json").read_text("utf-8"))


@dataclass(frozen=True)
class Manifest:
    """A validated manifest. ``raw`` is the document as given."""

    name: str
    entry: str | None
    tools: tuple[str, ...]
    read_only_tools: tuple[str, ...]
    show_output: bool | tuple[str, ...]
    defer_loading: bool | tuple[str, ...]
    raw: Mapping[str, Any]

    @property
    def external_read_only(self) -> bool:
        """Whether ``readOnlyTools`` holds the ``mcp__*`` wildcard."""
        return EXTERNAL_WILDCARD in self.read_only_tools

    @property
    def exact_read_only(self) -> frozenset[str]:
        return frozenset(n for n in self.read_only_tools if n != EXTERNAL_WILDCARD)

    def shows_output(self, tool: str) -> bool:
        return _matches(self.show_output, tool)

    def defers(self, tool: str) -> bool:
        return _matches(self.defer_loading, tool)


def _matches(value: bool | tuple[str, ...], tool: str) -> bool:
    if isinstance(value, bool):
        return value
    return any(tool.startswith(p[:-1]) if p.endswith("*") else tool == p for p in value)


def _field_path(error: jsonschema.ValidationError) -> str:
    return "/".join(str(p) for p in error.absolute_path) or "(root)"


@cache
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(manifest_schema())


def _first_problem(document: Any) -> tuple[str, str] | None:
    """The first schema violation of ``document`` (by field path), as (field, message)."""
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    return (_field_path(errors[0]), errors[0].message) if errors else None


@lru_cache(maxsize=1024)
def _first_problem_of_text(text: str) -> tuple[str, str] | None:
    return _first_problem(json.loads(text))


def _schema_problem(document: Any) -> tuple[str, str] | None:
    # A host installs the same few manifests over and over (every test does); validating one is
    # most of an install's cost, so the verdict is kept per document text (key order included).
    try:
        text = json.dumps(document, allow_nan=False)
    except (TypeError, ValueError):
        text = None
    if text is None or json.loads(text) != document:  # not plain JSON (a tuple, an int key): as it is
        return _first_problem(document)
    return _first_problem_of_text(text)


def parse_manifest(document: Any, *, default_name: str | None = None) -> Manifest:
    """Validate a manifest document and return it; :class:`ManifestError` names the bad field."""
    if document is None:
        document = {"name": default_name} if default_name else None
    if not isinstance(document, Mapping):
        raise ManifestError(
            f"manifest must be a JSON object, got {type(document).__name__}; see manifest.schema.json",
            subject="manifest",
        )
    if default_name and "name" not in document:
        document = {**document, "name": default_name}
    problem = _schema_problem(document)
    if problem is not None:
        field, message = problem
        raise ManifestError(
            f"manifest field {field!r}: {message}; fix that field (schema: manifest.schema.json)",
            subject=field,
        )
    provides = document.get("provides") or {}
    tools = tuple(provides.get("tools") or ())
    read_only = tuple(provides.get("readOnlyTools") or ())
    for name in read_only:
        if name.endswith("*") and name != EXTERNAL_WILDCARD:
            raise ManifestError(
                f"manifest field 'provides/readOnlyTools': {name!r} is not allowed; readOnlyTools takes exact "
                f"tool names and the single wildcard {EXTERNAL_WILDCARD!r}",
                rule="RO-1",
                subject="provides/readOnlyTools",
            )
    if EXTERNAL_WILDCARD in read_only and EXTERNAL_WILDCARD not in tools:
        raise ManifestError(
            f"manifest field 'provides/readOnlyTools': {EXTERNAL_WILDCARD!r} requires the matching "
            f"provides.tools entry; add {EXTERNAL_WILDCARD!r} to provides.tools",
            rule="RO-2",
            subject="provides/readOnlyTools",
        )
    for name in read_only:
        if name != EXTERNAL_WILDCARD and name not in tools:
            raise ManifestError(
                f"manifest field 'provides/readOnlyTools': {name!r} is not declared in provides.tools; "
                "an exact read-only name keeps its own declaration: add it to provides.tools",
                rule="RO-3",
                subject="provides/readOnlyTools",
            )

    def _match(key: str) -> bool | tuple[str, ...]:
        value = document.get(key, False)
        return value if isinstance(value, bool) else tuple(value)

    return Manifest(
        name=document["name"],
        entry=document.get("entry"),
        tools=tools,
        read_only_tools=read_only,
        show_output=_match("showOutput"),
        defer_loading=_match("deferLoading"),
        raw=dict(document),
    )
