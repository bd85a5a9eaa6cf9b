"""Shared by the example Python plugins: the parts every conforming tool does the same way.

A real plugin would keep these few lines in its own code.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "number": (int, float), "integer": (int,), "boolean": (bool,)}


def refusal(params: Any, spec: dict[str, tuple[str, bool]]) -> str | None:
    """The refusal text for ``params`` against ``{name: (type, optional)}``, or None when they fit.

    It names the parameter at fault, so the model knows what to fix (SCHEMA-4, NAME-6).
    """
    expected = ", ".join(spec) or "no parameters"
    if not isinstance(params, dict):
        return f"arguments must be an object with {expected}"
    for key in params:
        if key not in spec:
            return f"unknown parameter {key}; expected {expected}"
    for key, (kind, optional) in spec.items():
        if key not in params:
            if not optional:
                return f"{key} is required"
            continue
        value = params[key]
        if (isinstance(value, bool) and kind != "boolean") or not isinstance(value, _TYPES[kind]):
            return f"{key} must be a {kind}"
    return None
