"""Builders for scripted plugins: test plugins described as data (docs/adapter-contract.md).

This module writes the documents and checks them against ``scripted-plugin.schema.json``; a host
interprets them (the reference host's interpreter is :mod:`reference_host.scripted`). What a
document leaves out is the format's default, applied by the host that reads it (a tool's label is
its name, its description ``"Scripted tool NAME."``), so the builders write only what they are given
and never a second copy of those defaults.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

from pytest_toolconformance.host.contract import JSON


def flat_schema(required: dict[str, str] | None = None, optional: dict[str, str] | None = None) -> JSON:
    """A flat object schema from ``{name: json type}`` maps."""
    properties = {k: {"type": v} for k, v in {**(required or {}), **(optional or {})}.items()}
    schema: JSON = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def tool(
    name: str,
    *,
    parameters: JSON | None = None,
    handler: list[JSON] | None = None,
    description: str | None = None,
    label: str | None = None,
    **options: Any,
) -> JSON:
    """A scripted tool. ``label`` and ``description`` left out take the format's defaults.
    ``options`` are registration options by their JSON names (``external``, ``ownerUserId``,
    ``projectId``, ``platform``); leave one out to omit it."""
    spec: JSON = {"name": name}
    if label is not None:
        spec["label"] = label
    if description is not None:
        spec["description"] = description
    spec["parameters"] = parameters if parameters is not None else flat_schema()
    spec["handler"] = handler if handler is not None else [{"op": "text", "text": f"{name} ran"}]
    if options:
        spec["options"] = options
    return spec


def plugin(name: str, tools: list[JSON], *, manifest: JSON | None = None, register: list[JSON] | None = None) -> JSON:
    """A scripted plugin document."""
    doc: JSON = {"name": name, "tools": tools}
    if manifest is not None:
        doc["manifest"] = {"name": name, **manifest}
    if register:
        doc["register"] = register
    validate_plugin(doc)
    return doc


@cache
def plugin_schema() -> JSON:
    return json.loads(resources.files(__package__).joinpath("scripted-plugin.schema.json").read_text("utf-8"))


@cache
def _plugin_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(plugin_schema())


#: Documents already found valid, by their canonical text: the checks build the same few plugins again
#: and again, and walking the schema cost more than the rest of building one.
_VALID: set[str] = set()
_VALID_LIMIT = 4096


def validate_plugin(doc: JSON) -> None:
    """Raise :class:`jsonschema.ValidationError` if ``doc`` is not a scripted plugin."""
    try:
        text = json.dumps(doc, sort_keys=True)
    except (TypeError, ValueError):
        text = None  # not JSON at all: the validator says why
    if text is not None and text in _VALID:
        return
    _plugin_validator().validate(doc)
    if text is not None:
        if len(_VALID) >= _VALID_LIMIT:
            _VALID.clear()
        _VALID.add(text)
