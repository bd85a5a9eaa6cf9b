"""Generated checks of session composition: the caps, reason, scoping, read-only, plan mode, diagnostics.

The scenario files pin the named cases; these properties look for the case nobody named: a
description one byte over the cap with an emoji across the cut, a definition at exactly 8,000
bytes, a catalog mixing scoped, deferred, internal and external tools from several plugins. Every
example starts from a fresh host (``client.reset()``), and a failure reports the shrunk example as
its smallest scenario. ``--toolconformance-max-examples`` sets the examples per property and
``--toolconformance-seed`` makes them reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jsonschema
import pytest
from hypothesis import strategies as st

from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host import scripted
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.profile import run_property
from pytest_toolconformance.suites.host.preconditions import origin_checked, precondition

JSON = dict[str, Any]
# Keys that would carry registration metadata into a provider payload's tool entry (DIAG-3).
METADATA_KEYS = frozenset({
    "external", "origin", "ownerUserId", "owner_user_id", "projectId", "project_id", "platform", "readOnly",
    "read_only", "plugin", "owner", "scope", "deferLoading", "deferred", "showOutput", "metadata",
})
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


def install(client: HostClient, plugins: Iterable[JSON], rule: str) -> None:
    """Install generated plugins; each of their tools is valid, so each must be accepted."""
    for doc in plugins:
        report = client.install(doc)
        names = [t["name"] for t in doc["tools"]]
        check("error" not in report and sorted(report.get("accepted") or []) == sorted(names), rule,
              f"plugin {doc['name']!r} installs with every generated tool accepted (they are all valid)",
              report, {"plugin": doc})


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


# -- CAP ---------------------------------------------------------------------------------------------


def _advertised(session: Session, name: str, rule: str, scenario: Any) -> tuple[JSON, JSON]:
    composed = session.compose()
    tool = by_name(composed["tools"]).get(name)
    payload = by_name(composed["payload"].get("tools") or []).get(name)
    check(tool is not None and payload is not None, rule, f"{name} is in the tool list and the provider payload",
          {"tools": [t["name"] for t in composed["tools"]]}, scenario)
    return dict(tool), dict(payload)  # type: ignore[arg-type]


@pytest.mark.toolconformance("CAP-1")
def test_external_descriptions_are_cut_at_1000_bytes_on_a_character_boundary(toolconformance_host: HostClient) -> None:
    """CAP-1 at the boundary: 999 to 1,001 bytes with a multi-byte character across the cut."""
    client = toolconformance_host
    client.require("registration", "composition")

    def body(description: str) -> None:
        client.reset()
        doc = {"name": "bridge", "tools": [{"name": "mcp__srv__probe", "label": "probe", "description": description,
                                            "parameters": {"type": "object", "properties": {}},
                                            "handler": [], "options": {"external": True}}]}
        install(client, [doc], "CAP-1")
        session = client.open(identity={"userId": "u1"})
        scenario = {"plugin": doc, "originalBytes": tcs.utf8_len(description)}
        for where, entry in zip(("tool list", "provider payload"),
                                _advertised(session, "mcp__srv__probe", "CAP-1", scenario), strict=True):
            shown = entry.get("description")
            expected = tcs.utf8_prefix(description, tcs.DESCRIPTION_CAP)
            check(valid_utf8(shown), "CAP-1", f"the {where} description is valid UTF-8 text", shown, scenario)
            size = tcs.utf8_len(shown)
            check(size <= tcs.DESCRIPTION_CAP, "CAP-1", f"the {where} description is at most 1,000 UTF-8 bytes",
                  {"bytes": size}, scenario)
            check(description.encode("utf-8").startswith(shown.encode("utf-8")), "CAP-1",
                  f"the {where} description is a prefix of the original (a cut, not a rewrite)",
                  {"advertised": shown[-40:], "bytes": size}, scenario)
            if tcs.utf8_len(description) <= tcs.DESCRIPTION_CAP:
                check(shown == description, "CAP-1",
                      f"a description of at most 1,000 bytes is advertised unchanged in the {where}",
                      {"advertisedBytes": size}, scenario)
            else:
                check(shown == expected, "CAP-1",
                      f"the cut drops no whole character that fits: {tcs.utf8_len(expected)} bytes in the {where}",
                      {"advertisedBytes": size, "droppedFrom": description[len(shown):len(shown) + 3]}, scenario)

    run_property(st.one_of(tcs.descriptions_near(tcs.DESCRIPTION_CAP),
                           st.text(alphabet="ab€😀é", min_size=300, max_size=700)), body)


def _is_permissive(parameters: Any) -> tuple[bool, str]:
    if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
        return False, "the root is not {type: object}"
    try:
        validator = jsonschema.Draft202012Validator(parameters)
        accepts = all(validator.is_valid(probe) for probe in ({}, {"anything": 1, "else": ["x"]}, {"query": "q"}))
    except jsonschema.SchemaError as exc:
        return False, f"not a valid JSON Schema: {exc.message}"
    return (True, "") if accepts else (False, "it rejects some objects (not permissive)")


@pytest.mark.toolconformance("CAP-2")
def test_external_definitions_over_8000_bytes_get_a_permissive_schema(toolconformance_host: HostClient) -> None:
    """CAP-2 at the boundary: definitions of 7,999 to 8,001 JSON.stringify bytes (after CAP-1)."""
    client = toolconformance_host
    client.require("registration", "composition")

    def body(definition: JSON) -> None:
        client.reset()
        name, description, parameters = definition["name"], definition["description"], definition["parameters"]
        doc = {"name": "bridge", "tools": [{"name": name, "label": name, "description": description,
                                            "parameters": parameters, "handler": [], "options": {"external": True}}]}
        install(client, [doc], "CAP-2")
        size = tcs.definition_bytes(name, description, parameters)
        scenario = {"plugin": doc, "definitionBytes": size, "measure": "JSON.stringify({name, description after "
                    "CAP-1, parameters}) in UTF-8 bytes"}
        session = client.open(identity={"userId": "u1"})
        for where, entry in zip(("tool list", "provider payload"), _advertised(session, name, "CAP-2", scenario),
                                strict=True):
            advertised = entry.get("parameters")
            if size > tcs.DEFINITION_CAP:
                ok, why = _is_permissive(advertised)
                check(ok, "CAP-2", f"a {size}-byte definition is advertised in the {where} with a permissive object "
                      f"schema ({why})", advertised, scenario)
                kept = set((advertised or {}).get("properties") or {}) & set(parameters["properties"])
                check(not kept, "CAP-2", f"the permissive schema in the {where} drops the original properties",
                      sorted(kept), scenario)
                notice = (isinstance(advertised.get("description"), str) and advertised["description"].strip()) or (
                    entry.get("description") != tcs.utf8_prefix(description, tcs.DESCRIPTION_CAP))
                check(bool(notice), "CAP-2", f"an omission notice in the {where} (a parameters description, or an "
                      "amended tool description)", {"description": entry.get("description"),
                                                     "parameters": advertised}, scenario)
            elif tcs.js_stringify(advertised) != tcs.js_stringify(parameters):
                # Not replaced, yet not byte for byte as registered: the schema was rebuilt, which is
                # REASON-3's subject ("never reconstructed"), not the cap's.
                own = (advertised or {}).get("properties") if isinstance(advertised, Mapping) else None
                kept = (isinstance(own, Mapping) and all(own.get(k) == v for k, v in parameters["properties"].items())
                        and advertised.get("required") == parameters.get("required"))
                precondition(not kept, "REASON-3", "an external schema under the cap advertised byte for byte as "
                             "registered (not rebuilt)", {"advertisedBytes": tcs.utf8_len(tcs.js_stringify(advertised))})
                check(False, "CAP-2", f"a {size}-byte definition is advertised in the {where} with its schema as "
                      "registered, not replaced", {"advertisedBytes": tcs.utf8_len(tcs.js_stringify(advertised)),
                                                   "properties": sorted(own or {})}, scenario)

    run_property(tcs.external_definitions_near(tcs.DEFINITION_CAP), body)


@st.composite
def _big_internal_tools(draw: st.DrawFn) -> tuple[str, JSON]:
    description = draw(st.one_of(tcs.descriptions_near(tcs.DESCRIPTION_CAP), tcs.descriptions_near(1500)))
    schema = draw(tcs.flat_schemas(max_properties=3))
    padding = draw(st.sampled_from([0, 7000, 9000]))
    if padding:
        schema = {**schema, "properties": {**schema["properties"],
                                           "zz_notes": {"type": "string", "description": "n" * padding}}}
    return description, schema


@pytest.mark.toolconformance("CAP-3")
def test_internal_tools_are_never_capped(toolconformance_host: HostClient) -> None:
    """CAP-3: the same descriptions and sizes that cap an external tool leave an internal one alone."""
    client = toolconformance_host
    client.require("registration", "composition")

    def body(example: tuple[str, JSON]) -> None:
        description, schema = example
        client.reset()
        doc = {"name": "local", "tools": [{"name": "local_probe", "label": "probe", "description": description,
                                           "parameters": schema, "handler": []}]}
        install(client, [doc], "CAP-3")
        scenario = {"plugin": doc, "descriptionBytes": tcs.utf8_len(description),
                    "definitionBytes": tcs.definition_bytes("local_probe", description, schema, cap_description=False)}
        session = client.open(identity={"userId": "u1"})
        for where, entry in zip(("tool list", "provider payload"),
                                _advertised(session, "local_probe", "CAP-3", scenario), strict=True):
            check(entry.get("description") == description, "CAP-3",
                  f"the internal tool's description is advertised unchanged in the {where}",
                  {"advertisedBytes": tcs.utf8_len(entry.get("description") or "")}, scenario)
            advertised = without_reason(entry.get("parameters"))
            own = advertised.get("properties") or {}
            check(own == schema["properties"] and advertised.get("required") == schema.get("required"), "CAP-3",
                  f"the internal tool keeps its own properties and required list in the {where} (no permissive "
                  "replacement)", {"properties": sorted(own), "required": advertised.get("required")}, scenario)

    run_property(_big_internal_tools(), origin_checked(client, body))


@st.composite
def _external_calls(draw: st.DrawFn) -> tuple[JSON, JSON]:
    schema = draw(tcs.flat_schemas(max_properties=4))
    arguments = draw(st.one_of(tcs.arguments_for(schema), tcs.breaking_arguments_for(schema)))
    if draw(st.booleans()):
        arguments = {**arguments, "reason": "the owner decides what this means"}
    return schema, arguments


def _received(outcome: Mapping[str, Any]) -> Any:
    params = [o.get("value") for o in outcome.get("observations") or [] if o.get("op") == "params"]
    return params[-1] if params else None


@pytest.mark.toolconformance("CAP-4")
def test_external_arguments_reach_the_owner_as_sent(toolconformance_host: HostClient) -> None:
    """CAP-4: valid or schema-breaking arguments to an external tool are forwarded unchanged."""
    client = toolconformance_host
    client.require("registration", "calls")

    def body(example: tuple[JSON, JSON]) -> None:
        schema, arguments = example
        client.reset()
        doc = {"name": "bridge", "tools": [{"name": "mcp__srv__owner", "label": "owner", "description": "Remote.",
                                            "parameters": schema, "handler": [{"op": "echo"}],
                                            "options": {"external": True}}]}
        install(client, [doc], "CAP-4")
        outcome = client.open(identity={"userId": "u1"}).call("mcp__srv__owner", arguments)
        scenario = {"plugin": doc, "call": {"tool": "mcp__srv__owner", "arguments": arguments}}
        check(outcome.get("handlerRan") is True, "CAP-4", "the external owner's handler runs (the host does not "
              "validate an external call)", {"refusal": outcome.get("refusal")}, scenario)
        check(_received(outcome) == arguments, "CAP-4", "the handler receives the arguments exactly as sent",
              {"received": _received(outcome)}, scenario)

    run_property(_external_calls(), body)


# -- REASON -----------------------------------------------------------------------------------------

_CATALOG_SESSIONS = st.tuples(tcs.catalogs(), st.lists(tcs.session_specs(), min_size=1, max_size=2))


def _reason_problem(parameters: Any) -> str | None:
    if not isinstance(parameters, Mapping):
        return "parameters is not an object"
    reason = (parameters.get("properties") or {}).get("reason")
    if not isinstance(reason, Mapping) or reason.get("type") != "string":
        return f"properties.reason is {reason!r}, not a string property"
    if "reason" in (parameters.get("required") or []):
        return "reason is required"
    return None


def _compose_catalog(client: HostClient, example: tuple[tcs.Catalog, list[JSON]], rule: str
                     ) -> Iterable[tuple[JSON, JSON, tcs.Catalog, JSON]]:
    catalog, specs = example
    client.reset()
    install(client, catalog.plugins, rule)
    for spec in specs:
        yield spec, client.open(**spec).compose(), catalog, {"plugins": list(catalog.plugins), "session": spec}


@pytest.mark.toolconformance("REASON-1")
def test_every_internal_tool_gains_an_optional_reason(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        for _spec, composed, catalog, scenario in _compose_catalog(client, example, "REASON-1"):
            known = catalog.by_name()
            for entry in composed["tools"]:
                tool = known.get(entry["name"])
                if (tool is not None and tool.external) or entry["name"] in EXCLUDED_FROM_REASON:
                    continue
                problem = _reason_problem(entry.get("parameters"))
                check(problem is None, "REASON-1", f"internal tool {entry['name']} is advertised with an optional "
                      f"string reason ({problem})", entry.get("parameters"), scenario)

    run_property(_CATALOG_SESSIONS, origin_checked(client, body))


@pytest.mark.toolconformance("REASON-2")
def test_bash_and_toolsearch_never_gain_reason(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        for _spec, composed, _catalog, scenario in _compose_catalog(client, example, "REASON-2"):
            for entry in composed["tools"] + list(composed["payload"].get("tools") or []):
                if entry.get("name") in EXCLUDED_FROM_REASON:
                    props = (entry.get("parameters") or {}).get("properties") or {}
                    check("reason" not in props, "REASON-2", f"{entry['name']} is advertised without reason",
                          entry.get("parameters"), scenario)

    run_property(_CATALOG_SESSIONS, body)


@pytest.mark.toolconformance("REASON-3")
def test_external_schemas_are_never_reconstructed(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        for _spec, composed, catalog, scenario in _compose_catalog(client, example, "REASON-3"):
            known = catalog.by_name()
            for entry in composed["tools"] + list(composed["payload"].get("tools") or []):
                tool = known.get(entry.get("name"))
                if tool is None or not tool.external:
                    continue
                if tcs.definition_bytes(tool.name, tool.description, tool.parameters) > tcs.DEFINITION_CAP:
                    continue  # CAP-2 replaces it; that is checked there
                check(tcs.js_stringify(entry.get("parameters")) == tcs.js_stringify(tool.parameters), "REASON-3",
                      f"external tool {tool.name} is advertised with its schema byte-identical to the registered one "
                      "(no reason, nothing rebuilt)", {"advertised": entry.get("parameters"),
                                                       "registered": tool.parameters}, scenario)

    run_property(_CATALOG_SESSIONS, body)


@st.composite
def _reason_calls(draw: st.DrawFn) -> tuple[JSON, JSON, str]:
    schema = draw(tcs.flat_schemas(max_properties=4))
    return schema, draw(tcs.arguments_for(schema)), draw(st.text(min_size=1, max_size=40))


@pytest.mark.toolconformance("REASON-4")
def test_reason_is_consumed_before_the_handler(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "calls")

    def body(example: tuple[JSON, JSON, str]) -> None:
        schema, arguments, reason = example
        client.reset()
        doc = {"name": "local", "tools": [{"name": "local_probe", "label": "probe", "description": "Probe.",
                                           "parameters": schema, "handler": [{"op": "echo"}]}]}
        install(client, [doc], "REASON-4")
        sent = {**arguments, "reason": reason}
        session = client.open(identity={"userId": "u1"})
        for nth in ("first", "second"):  # a host may consume reason on a tool's first call only
            outcome = session.call("local_probe", sent)
            scenario = {"plugin": doc, "calls": [{"tool": "local_probe", "arguments": sent}] * (1 + (nth == "second"))}
            check(outcome.get("handlerRan") is True, "REASON-4", f"a valid call plus reason runs, the {nth} time too "
                  "(reason is never an unknown parameter)",
                  {"refusal": outcome.get("refusal"), "content": outcome.get("content")}, scenario)
            check(_received(outcome) == arguments, "REASON-4", f"on the {nth} call the handler receives the call's "
                  "arguments without reason", {"received": _received(outcome)}, scenario)

    run_property(_reason_calls(), origin_checked(client, body))


# -- SCOPE ------------------------------------------------------------------------------------------


@pytest.mark.toolconformance("SCOPE-1")
def test_scoped_tools_reach_the_sessions_of_their_scope(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        for spec, composed, catalog, scenario in _compose_catalog(client, example, "SCOPE-1"):
            listed = {e["name"]: e for e in composed["catalog"]}
            tools = {e["name"] for e in composed["tools"]}
            for tool in catalog.visible_to(spec):
                check(tool.name in listed, "SCOPE-1", f"{tool.name} (scope {_scope(tool)}) is in the catalog of a "
                      "session in its scope", sorted(listed), scenario)
                if not tool.deferred:
                    check(tool.name in tools, "SCOPE-1", f"{tool.name} (scope {_scope(tool)}) is in the tool list",
                          sorted(tools), scenario)

    run_property(_CATALOG_SESSIONS, body)


def _scope(tool: tcs.CatalogTool) -> str:
    parts = [f"{k}={v}" for k, v in (("ownerUserId", tool.owner_user_id), ("projectId", tool.project_id),
                                      ("platform", tool.platform)) if v is not None]
    return ", ".join(parts) or "instance-wide"


@pytest.mark.toolconformance("SCOPE-2")
def test_out_of_scope_tools_are_absent_not_refused(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "calls", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        catalog, specs = example
        client.reset()
        install(client, catalog.plugins, "SCOPE-2")
        for spec in specs:
            session = client.open(**spec)
            composed = session.compose()
            scenario = {"plugins": list(catalog.plugins), "session": spec}
            visible = {t.name for t in catalog.visible_to(spec)}
            hidden = [t for t in catalog.tools if t.name not in visible]
            names = {e["name"] for e in composed["catalog"]} | {e["name"] for e in composed["tools"]} | {
                e.get("name") for e in composed["payload"].get("tools") or []}
            diagnostics = set(strings_in(composed.get("diagnostics")))
            for tool in hidden:
                outcome = session.call(tool.name, {})
                precondition(outcome.get("handlerRan") is False, "SCOPE-1", f"{tool.name} (scope {_scope(tool)}) to "
                             "be refused outside its scope", {k: outcome.get(k) for k in ("handlerRan", "refusal")})
                check(tool.name not in names, "SCOPE-2", f"{tool.name} (scope {_scope(tool)}) is absent from the "
                      "catalog, tool list and payload of a session outside its scope", sorted(names), scenario)
                check(tool.name not in diagnostics, "SCOPE-2", f"{tool.name} is absent from that session's "
                      "diagnostics", composed.get("diagnostics"), scenario)
                check(outcome.get("handlerRan") is False and (outcome.get("refusal") or {}).get("stage") == "lookup",
                      "SCOPE-2", f"calling {tool.name} from outside its scope is an unknown tool (refused at lookup, "
                      "handler never runs)", {k: outcome.get(k) for k in ("handlerRan", "refusal")}, scenario)

    run_property(_CATALOG_SESSIONS, body)


# -- RO and PLAN ------------------------------------------------------------------------------------

_RO_SESSIONS = st.tuples(tcs.catalogs(read_only=True, long_descriptions=False), tcs.session_specs())


def _child_catalog(client: HostClient, catalog: tcs.Catalog, spec: JSON, rule: str) -> tuple[set[str], JSON]:
    client.reset()
    install(client, catalog.plugins, rule)
    child = client.open(**spec).delegate(read_only=True)
    composed = child.compose()
    return {e["name"] for e in composed["catalog"]} | {e["name"] for e in composed["tools"]}, composed


def _classification(client: HostClient, catalog: tcs.Catalog, spec: JSON, rule: str) -> dict[str, bool]:
    """The host's own read-only classification of the catalog's visible tools, from compose's catalog
    entries (what RO-1 and RO-3 are about); what a read-only child receives of it is RO-5's."""
    client.reset()
    install(client, catalog.plugins, rule)
    entries = by_name(client.open(**spec).compose()["catalog"])
    visible = [t.name for t in catalog.visible_to(spec) if t.name in entries]
    if any("readOnly" not in entries[n] for n in visible):
        pytest.skip(f"the host does not report readOnly in compose's catalog entries, where {rule} reads the host's "
                    "own classification (see docs/host-implementers.md, 'Tool metadata in the catalog')")
    return {n: entries[n]["readOnly"] is True for n in visible}


@pytest.mark.toolconformance("RO-1")
def test_mcp_wildcard_classifies_own_external_tools_only(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        read_only = _classification(client, catalog, spec, "RO-1")
        scenario = {"plugins": list(catalog.plugins), "session": spec, "then": "compose: the catalog's readOnly"}
        # A tool another plugin declared read-only by exact name may be classified by that declaration
        # (RO-3 decides whether rightly): its classification says nothing about the wildcard.
        stolen = {name for _, name in catalog.foreign_declarations}
        for tool in catalog.visible_to(spec):
            if not tool.plugin_wildcard or tool.declared_read_only or tool.name in stolen:
                continue
            if tool.external:
                check(read_only.get(tool.name) is True, "RO-1", f"{tool.plugin}'s mcp__* classifies its external tool "
                      f"{tool.name} read-only", read_only, scenario)
            else:
                check(read_only.get(tool.name) is False, "RO-1", f"{tool.plugin}'s mcp__* does not classify its "
                      f"internal tool {tool.name} (whatever its name)", read_only, scenario)
        wildcards = {t.plugin for t in catalog.tools if t.plugin_wildcard}
        for tool in catalog.visible_to(spec):
            if not tool.read_only and tool.name not in stolen and wildcards - {tool.plugin}:
                check(read_only.get(tool.name) is False, "RO-1", f"another plugin's mcp__* does not classify "
                      f"{tool.name}", read_only, scenario)

    run_property(_RO_SESSIONS, origin_checked(client, body))


@pytest.mark.toolconformance("RO-3")
def test_foreign_read_only_declarations_classify_nothing(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        read_only = _classification(client, catalog, spec, "RO-3")
        scenario = {"plugins": list(catalog.plugins), "session": spec, "then": "compose: the catalog's readOnly"}
        known = catalog.by_name()
        wildcards = {t.plugin for t in catalog.tools if t.plugin_wildcard}
        for plugin, stolen in catalog.foreign_declarations:
            tool = known[stolen]
            if tool.read_only or stolen not in read_only:
                continue
            if wildcards:
                # A plugin's mcp__* could classify it (RO-1 decides whether rightly): its classification
                # cannot say that the foreign declaration classified it.
                continue
            check(read_only[stolen] is False, "RO-3", f"{plugin} declared {stolen} (owned by {tool.plugin}) read-only; "
                  "that classifies nothing", read_only, scenario)

    run_property(_RO_SESSIONS.filter(lambda ex: bool(ex[0].foreign_declarations)), body)


@pytest.mark.toolconformance("RO-5")
def test_read_only_children_receive_exactly_the_read_only_set(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "delegation", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        names, _ = _child_catalog(client, catalog, spec, "RO-5")
        scenario = {"plugins": list(catalog.plugins), "session": spec, "then": "delegate a read-only child"}
        visible = catalog.visible_to(spec)
        entries = by_name(client.open(**spec).compose()["catalog"])
        parent = set(entries) & {t.name for t in catalog.tools}
        precondition(parent == {t.name for t in visible}, "SCOPE-1", "the parent session to hold exactly the tools "
                     "of its scope", sorted(parent ^ {t.name for t in visible}))
        expected = {t.name for t in visible if t.read_only}
        got = names & {t.name for t in catalog.tools}
        if got != expected and all("readOnly" in entries[t.name] for t in visible):
            # The child follows the host's own classification, and that classification is wrong: the
            # declaration's reading (RO-1 for the wildcard, RO-3 for exact names) is broken, not RO-5.
            classified = {t.name for t in visible if entries[t.name]["readOnly"] is True}
            wrong = [t for t in visible if (t.name in classified) != (t.name in expected)]
            stolen = {name for _, name in catalog.foreign_declarations}
            owner_rule = "RO-3" if any(t.declared_read_only or t.name in stolen for t in wrong) else "RO-1"
            precondition(got != classified, owner_rule, "the host to classify read-only exactly the declared tools",
                         {"misclassified": sorted(t.name for t in wrong)})
        check(got == expected, "RO-5", "the read-only child receives exactly the plugin tools classified read-only "
              f"(missing {sorted(expected - got)}, extra {sorted(got - expected)})", sorted(got), scenario)

    run_property(_RO_SESSIONS, body)


@pytest.mark.toolconformance("PLAN-1")
def test_plan_turns_advertise_the_build_tool_list(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "plan-mode", "deferral")

    def body(example: tuple[tcs.Catalog, JSON]) -> None:
        catalog, spec = example
        client.reset()
        install(client, catalog.plugins, "PLAN-1")
        build = client.open(**spec).compose()
        plan = client.open(**{**spec, "mode": "plan"}).compose()
        scenario = {"plugins": list(catalog.plugins), "session": spec, "compare": "mode build vs mode plan"}
        # A deferred read-only tool the Plan turn advertises without the loader is PLAN-4's subject:
        # with it the two lists cannot be compared for what PLAN-1 is about (nothing hidden or changed).
        declared = catalog.by_name()
        preloaded = sorted(n for n in {e["name"] for e in plan["tools"]} - {e["name"] for e in build["tools"]}
                           if n in declared and declared[n].deferred and declared[n].read_only)
        precondition(not preloaded, "PLAN-4", "a Plan turn to reach deferred read-only tools through the loader",
                     {"advertisedOnlyOnPlan": preloaded})
        for key in ("tools", "catalog"):
            check(tcs.js_stringify(plan[key]) == tcs.js_stringify(build[key]), "PLAN-1",
                  f"the Plan turn's {key} equal the Build turn's", {
                      "onlyBuild": sorted({e["name"] for e in build[key]} - {e["name"] for e in plan[key]}),
                      "onlyPlan": sorted({e["name"] for e in plan[key]} - {e["name"] for e in build[key]})}, scenario)
        check(tcs.js_stringify(plan["payload"].get("tools")) == tcs.js_stringify(build["payload"].get("tools")),
              "PLAN-1", "the Plan turn's payload tools equal the Build turn's", None, scenario)

    run_property(_RO_SESSIONS, body)


def _refused_in_plan(outcome: Mapping[str, Any]) -> bool:
    return (outcome.get("handlerRan") is False and (outcome.get("refusal") or {}).get("stage") == "plan"
            and outcome.get("isError") is False)


def _unscoped_twin_refused(client: HostClient, tool: tcs.CatalogTool, spec: JSON) -> None:
    """A scoped tool the Plan turn ran: if its unscoped twin (same origin, same read-only declaration)
    is refused, scoping made the difference, which is SCOPE-3's subject, not the plan policy's."""
    name = "mcp__twin__probe" if tool.external else "twin_probe"
    provides: JSON = {}
    if tool.declared_read_only:
        provides = {"tools": [name], "readOnlyTools": [name]}
    elif tool.plugin_wildcard:
        provides = {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}
    twin_tool = scripted.tool(name, label=name, description="Unscoped twin.", handler=[],
                              parameters={"type": "object", "properties": {}},
                              **({"external": True} if tool.external else {}))
    doc = scripted.plugin("twin", [twin_tool], manifest={"provides": provides} if provides else None)
    install(client, [doc], "SCOPE-3")
    twin = client.open(**{**spec, "mode": "plan"}).call(name, {})
    precondition(not _refused_in_plan(twin), "SCOPE-3", f"scoping to change nothing of the plan policy: {tool.name} "
                 f"(scoped) ran on a Plan turn where its unscoped twin {name} is refused", twin.get("refusal"))


def _classification_holds(session: Session, tool: tcs.CatalogTool, catalog: tcs.Catalog) -> None:
    """An internal tool the Plan turn wrongly ran or refused: if the host's own catalog classifies it
    against its declaration, plan mode followed a wrong classification, which is the declaration
    rule's subject (RO-3 for exact names, RO-1 for the wildcard), not the plan policy's."""
    entry = by_name(session.compose()["catalog"]).get(tool.name) or {}
    if "readOnly" not in entry:
        return
    stolen = {name for _, name in catalog.foreign_declarations}
    owner_rule = "RO-3" if tool.declared_read_only or tool.name in stolen else "RO-1"
    precondition(entry["readOnly"] is tool.read_only, owner_rule, f"the host to classify {tool.name} as declared "
                 f"(readOnly {str(tool.read_only).lower()})", entry)


def _plan_calls(rule: str, external: bool) -> Callable[[HostClient], None]:
    def run(client: HostClient) -> None:
        def body(example: tuple[tcs.Catalog, JSON, st.DataObject]) -> None:
            catalog, spec, data = example
            client.reset()
            install(client, catalog.plugins, rule)
            session = client.open(**{**spec, "mode": "plan"})
            for tool in catalog.visible_to(spec):
                if tool.deferred or tool.external is not external:
                    continue
                flat = tool.parameters.get("type") == "object" and isinstance(tool.parameters.get("properties"), dict)
                arguments = data.draw(tcs.arguments_for(tool.parameters)) if flat and not external else {}
                outcome = session.call(tool.name, arguments)
                scenario = {"plugins": list(catalog.plugins), "session": {**spec, "mode": "plan"},
                            "call": {"tool": tool.name, "arguments": arguments}}
                summary = {k: outcome.get(k) for k in ("handlerRan", "refusal", "isError")}
                if not tool.external and outcome.get("handlerRan") is not tool.plan_runs:
                    _classification_holds(session, tool, catalog)
                if tool.plan_runs:
                    check(outcome.get("handlerRan") is True, rule, f"{tool.name}, declared read-only by exact name, "
                          "runs on a Plan turn", summary, scenario)
                else:
                    why = ("an external tool never runs in plan mode" if tool.external else
                           "it is not in the read-only set")
                    if tool.scoped and not _refused_in_plan(outcome):
                        _unscoped_twin_refused(client, tool, spec)
                    check(_refused_in_plan(outcome), rule,
                          f"{tool.name} is refused by the plan-mode policy with a text result ({why}), its handler "
                          "never runs", summary, scenario)

        run_property(st.tuples(tcs.catalogs(read_only=True, long_descriptions=False,
                                            external=True if external else None),
                               tcs.session_specs(), st.data()), origin_checked(client, body))

    return run


@pytest.mark.toolconformance("PLAN-2")
def test_plan_turns_execute_only_the_read_only_set(toolconformance_host: HostClient) -> None:
    toolconformance_host.require("registration", "calls", "scoping", "plan-mode", "deferral")
    _plan_calls("PLAN-2", external=False)(toolconformance_host)


@pytest.mark.toolconformance("PLAN-3")
def test_plan_turns_never_execute_external_tools(toolconformance_host: HostClient) -> None:
    toolconformance_host.require("registration", "calls", "scoping", "plan-mode", "deferral")
    _plan_calls("PLAN-3", external=True)(toolconformance_host)


# -- DIAG -------------------------------------------------------------------------------------------


@pytest.mark.toolconformance("DIAG-1")
def test_diagnostics_redact_external_names_and_their_namespaces(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral", "diagnostics")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        for spec, composed, catalog, scenario in _compose_catalog(client, example, "DIAG-1"):
            strings = list(strings_in(composed.get("diagnostics")))
            secret = [t.name for t in catalog.tools if t.external] + sorted(catalog.external_plugins)
            leaks = sorted({needle for needle in secret for s in strings if needle in s})
            check(not leaks, "DIAG-1", "the cache diagnostics contain no external tool name and no namespace hosting "
                  "an external tool", {"leaked": leaks, "diagnostics": composed.get("diagnostics")}, scenario)
            payload = {e.get("name") for e in composed["payload"].get("tools") or []}
            for tool in catalog.visible_to(spec):
                if tool.external and not tool.deferred:
                    check(tool.name in payload, "DIAG-1", f"the provider payload still names {tool.name} (redaction is "
                          "a separate projection)", sorted(n for n in payload if n), scenario)

    run_property(_CATALOG_SESSIONS, body)


@pytest.mark.toolconformance("DIAG-2")
def test_without_external_tools_diagnostics_stay_local(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral", "diagnostics")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        for spec, composed, catalog, scenario in _compose_catalog(client, example, "DIAG-2"):
            strings = set(strings_in(composed.get("diagnostics")))
            for tool in catalog.visible_to(spec):
                check(tool.name in strings, "DIAG-2", f"with no external registrations, the diagnostics name local "
                      f"tool {tool.name}", composed.get("diagnostics"), scenario)
            payload = by_name(composed["payload"].get("tools") or [])
            for tool in catalog.visible_to(spec):
                if tool.deferred:
                    continue
                own = without_reason((payload.get(tool.name) or {}).get("parameters")).get("properties")
                check(own == tool.parameters["properties"], "DIAG-2", f"local tool {tool.name}'s schema is advertised "
                      "as registered (plus reason)", payload.get(tool.name), scenario)

    run_property(st.tuples(tcs.catalogs(external=False), st.lists(tcs.session_specs(), min_size=1, max_size=2)), origin_checked(client, body))


@pytest.mark.toolconformance("DIAG-3")
def test_provider_payloads_carry_no_registration_metadata(toolconformance_host: HostClient) -> None:
    client = toolconformance_host
    client.require("registration", "composition", "scoping", "deferral")

    def body(example: tuple[tcs.Catalog, list[JSON]]) -> None:
        for _spec, composed, catalog, scenario in _compose_catalog(client, example, "DIAG-3"):
            payload = composed["payload"]
            for entry in payload.get("tools") or []:
                extra = sorted(METADATA_KEYS & set(entry))
                check(not extra, "DIAG-3", f"payload entry {entry.get('name')} has no metadata keys", extra, scenario)
            needles = [*tcs.ACCOUNTS, *tcs.PROJECTS, *(p["name"] for p in catalog.plugins)]
            leaks = sorted({n for n in needles for s in strings_in(payload) if n in s})
            check(not leaks, "DIAG-3", "the provider payload mentions no owner, Project or plugin (namespace) of a "
                  "registration", leaks, scenario)
            known = catalog.by_name()
            for entry in payload.get("tools") or []:
                tool = known.get(entry.get("name"))
                if tool is None or tool.external:
                    continue
                advertised = without_reason(entry.get("parameters"))
                check(tcs.js_stringify(advertised) == tcs.js_stringify(tool.parameters), "DIAG-3",
                      f"internal tool {tool.name}'s advertised schema is its own plus reason, with nothing inserted",
                      {"advertised": entry.get("parameters"), "registered": tool.parameters}, scenario)

    run_property(_CATALOG_SESSIONS, body)
