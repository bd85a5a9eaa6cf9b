"""Generated inputs that suites of more than one rule family draw: nested JSON values (a call's
arguments for NAME-7, a result's details for REG-4) and a plugin whose manifest lists other tools than
it registers (REG-5, MANIFEST-3)."""

from __future__ import annotations

from hypothesis import strategies as st

from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import plugin, tool

#: A JSON leaf: null, a boolean, a small integer or a short string.
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6))
#: A JSON value of up to eight leaves, nested in lists and objects.
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("abcxyz", max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)

#: The tool names an audit plugin registers, lists in provides.tools and names in its other manifest lists.
AUDIT_NAMES = ("Alpha", "Beta", "Gamma", "Delta")


def audit_plugin(registered: list[str], listed: list[str], others: list[str]) -> JSON:
    """A plugin registering ``registered``, listing ``listed`` in provides.tools (none: no provides) and
    ``others`` in deferLoading and showOutput."""
    manifest: JSON = {"deferLoading": others, "showOutput": others}
    if listed:
        manifest["provides"] = {"tools": listed}
    return plugin("audit", [tool(n) for n in registered], manifest=manifest)
