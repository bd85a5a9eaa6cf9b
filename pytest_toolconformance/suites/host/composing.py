"""What the composition suites share: installing generated plugins, composing a catalog, reading
what a composition advertises (the tools by name, every string in it, a schema less ``reason``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.findings import bound_rule
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.preconditions import origin_checked, origin_holds, precondition

JSON = dict[str, Any]
# Keys that would carry registration metadata into a provider payload's tool entry (DIAG-3).
METADATA_KEYS = frozenset(
    {
        "external",
        "origin",
        "ownerUserId",
        "owner_user_id",
        "projectId",
        "project_id",
        "platform",
        "readOnly",
        "read_only",
        "plugin",
        "owner",
        "scope",
        "deferLoading",
        "deferred",
        "showOutput",
        "metadata",
    }
)
EXCLUDED_FROM_REASON = ("Bash", "ToolSearch")


def without_reason(parameters: Any) -> JSON:
    """An internal tool's advertised schema less the ``reason`` field the host adds: the field itself,
    optional or (wrongly) required, is REASON-1's subject, so other rules compare what is left."""
    own = dict(parameters) if isinstance(parameters, Mapping) else {}
    if isinstance(own.get("properties"), Mapping):
        own["properties"] = {k: v for k, v in own["properties"].items() if k != "reason"}
    if isinstance(own.get("required"), list) and "reason" in own["required"]:
        required = [r for r in own["required"] if r != "reason"]
        if required:
            own["required"] = required
        else:
            del own["required"]
    return own


def reason_problem(parameters: Any) -> str | None:
    """What keeps an advertised schema from carrying REASON-1's field, an optional string ``reason``
    (None when it does): checked by REASON-1 itself, and by checks that compare internal tools'
    schemas and would otherwise blame a missing or required ``reason`` on their own rule."""
    if not isinstance(parameters, Mapping):
        return "parameters is not an object"
    reason = (parameters.get("properties") or {}).get("reason")
    if not isinstance(reason, Mapping) or reason.get("type") != "string":
        return f"properties.reason is {reason!r}, not a string property"
    required = parameters.get("required") or []
    if isinstance(required, list) and "reason" in required:
        return "reason is required"
    return None


def keeps_schema(advertised: Any, original: Mapping[str, Any]) -> bool:
    """Nothing of ``original`` (a flat object schema) is lost in ``advertised``: every property with its
    own definition, every required name still required. What a host adds of its own (a field it
    injects into every schema, a name made required, ``additionalProperties``, ``null`` admitted beside
    a property's type, as a strict provider's serialiser does) loses nothing, so the cap rules do not
    read it as a cap, nor DIAG-2 as a redaction, nor DIAG-3 as metadata; whether it may be added at all
    is another rule's (REASON-1 for ``reason``, REASON-3 for an external schema)."""
    if not isinstance(advertised, Mapping) or not isinstance(advertised.get("properties"), Mapping):
        return False
    own = advertised["properties"]
    required = advertised.get("required") or []
    return all(_keeps_definition(own.get(k), v) for k, v in (original.get("properties") or {}).items()) and (
        isinstance(required, list) and set(original.get("required") or []) <= set(required)
    )


def _keeps_definition(advertised: Any, original: Any) -> bool:
    """A property's definition kept: each of its own keys with its own value, its type at most widened."""
    if advertised == original:
        return True
    if not isinstance(advertised, Mapping) or not isinstance(original, Mapping):
        return False
    for key, value in original.items():
        if key == "type":
            widened = advertised.get("type")
            types = value if isinstance(value, list) else [value]
            if not (widened == value or (isinstance(widened, list) and all(t in widened for t in types))):
                return False
        elif advertised.get(key) != value:
            return False
    return True


def one_tool_plugin(
    plugin: str,
    tool: str,
    description: str,
    parameters: JSON,
    *,
    label: str | None = None,
    handler: list[JSON] | None = None,
    external: bool = False,
) -> JSON:
    """A plugin document ``plugin`` that registers the one tool ``tool`` (its label ``label`` or its
    name; ``handler`` the steps it runs, none by default; ``external`` for an external tool)."""
    entry: JSON = {
        "name": tool,
        "label": label or tool,
        "description": description,
        "parameters": parameters,
        "handler": handler or [],
    }
    if external:
        entry["options"] = {"external": True}
    return {"name": plugin, "tools": [entry]}


def install(client: HostClient, plugins: Iterable[JSON], *, rule: str | None = None) -> None:
    """Install generated plugins; each of their tools is valid, so each must be accepted (a finding of
    the running test's rule, or of ``rule`` where the install is another rule's precondition)."""
    for doc in plugins:
        report = client.install(doc)
        names = [t["name"] for t in doc["tools"]]
        check(
            "error" not in report and sorted(report.get("accepted") or []) == sorted(names),
            f"plugin {doc['name']!r} installs with every generated tool accepted (they are all valid)",
            report,
            {"plugin": doc},
            rule=rule,
        )


def install_fresh(client: HostClient, catalog: tcs.Catalog) -> None:
    """A fresh host (reset) with a generated catalog's plugins installed, each tool accepted."""
    client.reset()
    install(client, catalog.plugins)


def by_name(entries: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {e["name"]: e for e in entries}


def strings_in(value: Any) -> Iterable[str]:
    """Every string in ``value``: keys and values, at any depth."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)


def valid_utf8(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


#: A composition property's case: a catalog and its session specs, and for a fixed case what its
#: ``elsewhere`` hook is handed as ``chosen``.
CompositionCase = tuple[tcs.Catalog, list[JSON]] | tuple[tcs.Catalog, list[JSON], str]
#: ``elsewhere(spec, session, catalog, chosen)``: one more session to judge beside the first spec's own
#: (``session``), as (what the scenario says of it, its composition), or None; ``chosen`` is a fixed
#: case's third element, else None.
Elsewhere = Callable[[JSON, Session, tcs.Catalog, "str | None"], "tuple[JSON, JSON] | None"]


def composition_property(
    client: HostClient,
    judge: Callable[[JSON, JSON, tcs.Catalog, JSON], None],
    *,
    needs: tuple[str, ...] = (),
    sessions: st.SearchStrategy[tuple[tcs.Catalog, list[JSON]]] | None = None,
    origin_checked_too: bool = False,
    examples: Sequence[CompositionCase] = (),
    elsewhere: Elsewhere | None = None,
) -> None:
    """The frame of a composition property: for each generated catalog and its session specs
    (``sessions``, :data:`CATALOG_SESSIONS` by default; ``examples`` first, whatever the example budget),
    a fresh host with the catalog's plugins installed, composed in each spec, and where ``elsewhere`` is
    given in the one more session it opens beside the first; ``judge(spec, composition, catalog,
    scenario)`` says what the rule asks of each (its findings re-examined by the origin precondition
    where ``origin_checked_too``). The host must offer what the frame uses, and ``needs`` besides."""
    client.require("registration", "composition", "scoping", "deferral", *needs)

    def body(example: CompositionCase) -> None:
        catalog, specs, *chosen = example
        install_fresh(client, catalog)
        for index, spec in enumerate(specs):
            scenario = {"plugins": list(catalog.plugins), "session": spec}
            session = client.open(**spec)
            judge(spec, session.compose(), catalog, scenario)
            if index == 0 and elsewhere is not None:
                other = elsewhere(spec, session, catalog, chosen[0] if chosen else None)
                if other is not None:
                    judge(spec, other[1], catalog, {**scenario, "session": other[0]})

    run_property(
        CATALOG_SESSIONS if sessions is None else sessions,
        origin_checked(client, body) if origin_checked_too else body,
        examples=examples,
        share_draws=True,
    )


def scope_name(tool: tcs.CatalogTool) -> str:
    parts = [
        f"{k}={v}"
        for k, v in (("ownerUserId", tool.owner_user_id), ("projectId", tool.project_id), ("platform", tool.platform))
        if v is not None
    ]
    return ", ".join(parts) or "instance-wide"


#: A catalog and one or two sessions to compose it in.
CATALOG_SESSIONS = name_strategy(
    st.tuples(tcs.catalogs(), st.lists(tcs.session_specs(), min_size=1, max_size=2)), f"{__name__}.CATALOG_SESSIONS"
)
#: A catalog with read-only declarations (short descriptions) and a session to compose it in (RO, PLAN).
READ_ONLY_SESSIONS = name_strategy(
    st.tuples(tcs.catalogs(read_only=True, long_descriptions=False), tcs.session_specs()),
    f"{__name__}.READ_ONLY_SESSIONS",
)


def read_only_session_property(
    client: HostClient,
    body: Callable[[tcs.Catalog, JSON], None],
    *needs: str,
    examples: Sequence[tuple[tcs.Catalog, JSON]] = (),
) -> None:
    """A property over :data:`READ_ONLY_SESSIONS`: ``body(catalog, spec)`` for each generated catalog and
    session spec, ``examples`` first whatever the example budget. The host must offer registration,
    composition, scoping and deferral, and ``needs``."""
    client.require("registration", "composition", "scoping", "deferral", *needs)

    def run(example: tuple[tcs.Catalog, JSON]) -> None:
        body(*example)

    run_property(READ_ONLY_SESSIONS, run, examples=examples, share_draws=True)


def tool_entry(composition: JSON, name: str, key: str = "tools") -> JSON | None:
    """The entry of tool ``name`` in a composition's ``tools`` (what the model is sent) or ``catalog``."""
    return next((t for t in composition.get(key) or [] if t.get("name") == name), None)


def loaded_origin_holds(client: HostClient, composed: JSON, name: str, *, deferred: bool, external: bool) -> None:
    """Before a finding about a deferred tool ``name`` once loaded: what the finding follows is the tool's
    origin. A loaded deferred tool the host's own catalog gives the other origin is EXT-1's or EXT-2's
    fault where the origin probe shows the host reads the option wrong everywhere, else EXT-4's (origin
    is independent of deferral); not the rule being checked. A catalog without origin says nothing."""
    if not deferred:
        return
    origin = (tool_entry(composed, name, "catalog") or {}).get("origin")
    expected = "external" if external else "internal"
    if origin in (None, expected):
        return
    origin_holds(client, bound_rule())
    precondition(False, "EXT-4", f"deferred tool {name}, once loaded, classified {expected}", {"origin": origin})


def handler_received(outcome: Mapping[str, Any]) -> Any:
    """The params the handler last observed in a call's outcome (its scripted ``params`` step)."""
    params = [o.get("value") for o in outcome.get("observations") or [] if o.get("op") == "params"]
    return params[-1] if params else None


__all__ = [
    "keeps_schema",
    "CATALOG_SESSIONS",
    "handler_received",
    "EXCLUDED_FROM_REASON",
    "JSON",
    "METADATA_KEYS",
    "READ_ONLY_SESSIONS",
    "read_only_session_property",
    "reason_problem",
    "by_name",
    "composition_property",
    "CompositionCase",
    "Elsewhere",
    "install",
    "loaded_origin_holds",
    "scope_name",
    "strings_in",
    "tool_entry",
    "valid_utf8",
    "without_reason",
]
