"""DIAG: diagnostics redact external names and their namespaces, stay local without external tools,
and provider payloads carry no registration metadata.

Generated checks: Hypothesis properties, run as the package says (:mod:`pytest_toolconformance.suites.host`).
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host import scripted
from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.profile import name_strategy
from pytest_toolconformance.suites.host.composing import (
    JSON,
    METADATA_KEYS,
    by_name,
    composition_property,
    keeps_schema,
    reason_problem,
    strings_in,
    without_reason,
)
from pytest_toolconformance.suites.host.preconditions import precondition

# -- DIAG -------------------------------------------------------------------------------------------


@pytest.mark.toolconformance("DIAG-1")
def test_diagnostics_redact_external_names_and_their_namespaces(toolconformance_host: HostClient) -> None:
    def judge(spec: JSON, composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        strings = list(strings_in(composed.get("diagnostics")))
        secret = [t.name for t in catalog.tools if t.external] + sorted(catalog.external_plugins)
        leaks = sorted({needle for needle in secret for s in strings if needle in s})
        check(
            not leaks,
            "the cache diagnostics contain no external tool name and no namespace hosting an external tool",
            {"leaked": leaks, "diagnostics": composed.get("diagnostics")},
            scenario,
        )
        payload = {e.get("name") for e in composed["payload"].get("tools") or []}
        for tool in catalog.visible_to(spec):
            if tool.external and not tool.deferred:
                check(
                    tool.name in payload,
                    f"the provider payload still names {tool.name} (redaction is a separate projection)",
                    sorted(n for n in payload if n),
                    scenario,
                )

    composition_property(toolconformance_host, judge, needs=("diagnostics",))


@pytest.mark.toolconformance("DIAG-2")
def test_without_external_tools_diagnostics_stay_local(toolconformance_host: HostClient) -> None:
    def judge(spec: JSON, composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        strings = set(strings_in(composed.get("diagnostics")))
        for tool in catalog.visible_to(spec):
            check(
                tool.name in strings,
                f"with no external registrations, the diagnostics name local tool {tool.name}",
                composed.get("diagnostics"),
                scenario,
            )
            # A hosted namespace is a diagnostic name too: redacted only where it hosts an external tool.
            check(
                any(tool.plugin in s for s in strings),
                f"with no external registrations, the diagnostics "
                f"name the hosted namespace {tool.plugin} of local tool {tool.name}",
                composed.get("diagnostics"),
                scenario,
            )
        payload = by_name(composed["payload"].get("tools") or [])
        for tool in catalog.visible_to(spec):
            if tool.deferred:
                continue
            advertised = without_reason((payload.get(tool.name) or {}).get("parameters"))
            check(
                keeps_schema(advertised, tool.parameters),
                f"local tool {tool.name}'s schema is advertised "
                "with every property and required name it was registered with (unredacted)",
                payload.get(tool.name),
                scenario,
            )

    local = st.tuples(tcs.catalogs(external=False), st.lists(tcs.session_specs(), min_size=1, max_size=2))
    composition_property(
        toolconformance_host,
        judge,
        needs=("diagnostics",),
        sessions=name_strategy(local, f"{__name__}.local catalogs"),
        origin_checked_too=True,
    )


@pytest.mark.toolconformance("DIAG-3")
def test_provider_payloads_carry_no_registration_metadata(toolconformance_host: HostClient) -> None:
    def judge(_spec: JSON, composed: JSON, catalog: tcs.Catalog, scenario: JSON) -> None:
        payload = composed["payload"]
        for entry in payload.get("tools") or []:
            extra = sorted(METADATA_KEYS & set(entry))
            check(not extra, f"payload entry {entry.get('name')} has no metadata keys", extra, scenario)
        needles = [*tcs.ACCOUNTS, *tcs.PROJECTS, *(p["name"] for p in catalog.plugins)]
        strings = list(strings_in(payload))
        leaks = sorted({n for n in needles for s in strings if n in s})
        check(
            not leaks,
            "the provider payload mentions no owner, Project or plugin (namespace) of a registration",
            leaks,
            scenario,
        )
        known = catalog.by_name()
        for entry in payload.get("tools") or []:
            tool = known.get(entry.get("name"))
            if tool is None or tool.external:
                continue
            advertised = without_reason(entry.get("parameters"))
            inserted = set(advertised) | set(advertised.get("properties") or {})
            # A schema that lost a registered property is a cut internal tool (CAP-3), not an insertion.
            precondition(
                keeps_schema(advertised, tool.parameters),
                "CAP-3",
                f"internal tool {tool.name} advertised with every property and required name it registered",
                {"advertised": entry.get("parameters"), "registered": tool.parameters},
            )
            check(
                not inserted & METADATA_KEYS,
                f"internal tool {tool.name}'s advertised schema is its own (plus reason, and what the host adds "
                "of its own), with no registration metadata inserted",
                {
                    "advertised": entry.get("parameters"),
                    "registered": tool.parameters,
                    "metadataKeys": sorted(inserted & METADATA_KEYS),
                },
                scenario,
            )

    composition_property(toolconformance_host, judge)


#: Twin tools, alike in everything the model sees (description, schema) and unlike in one piece of
#: registration metadata each (the read-only classification, the scope), internal and external.
_TWIN_SESSION = {"identity": {"userId": "acct-twins"}, "projectId": "proj-twins", "platform": "web"}
_TWIN_SCOPE = {"ownerUserId": "acct-twins", "projectId": "proj-twins", "platform": "web"}
_TWINS = {
    "twin_plain": ("internal", {}),
    "twin_read_only": ("internal", {}),
    "twin_scoped": ("internal", _TWIN_SCOPE),
    "mcp__twins__plain": ("external", {"external": True}),
    "mcp__twins__scoped": ("external", {"external": True, **_TWIN_SCOPE}),
}


@pytest.mark.toolconformance("DIAG-3")
def test_payload_entries_do_not_depend_on_registration_metadata(toolconformance_host: HostClient) -> None:
    """Registration metadata is never inserted into provider payloads, under whatever name or in whatever
    shape: two tools that differ only in their metadata get payload entries that differ only in name."""
    client = toolconformance_host
    client.require("registration", "composition", "scoping")
    tools = [
        scripted.tool(name, description="Looks a twin up.", parameters=scripted.flat_schema({"q": "string"}), **options)
        for name, (_origin, options) in _TWINS.items()
    ]
    manifest = {"provides": {"tools": list(_TWINS), "readOnlyTools": ["twin_read_only"]}}
    client.install_ok(scripted.plugin("twins", tools, manifest=manifest))
    composed = client.open(**_TWIN_SESSION).compose()
    listed = {entry.get("name") for entry in composed.get("catalog") or []}
    entries = by_name(composed["payload"].get("tools") or [])
    scenario = {"plugin": "twins", "manifest": manifest, "session": _TWIN_SESSION}
    precondition(
        set(_TWINS) <= listed, "SCOPE-1", "every twin, in this session's scope, in its catalog", sorted(listed)
    )
    # The payload names each tool (DIAG-1: redaction is the diagnostics' projection, not the payload's).
    precondition(
        set(_TWINS) <= set(entries), "DIAG-1", "every twin in the provider payload under its name", sorted(entries)
    )
    # External twins first: a block of the internal ones (below) leaves them judged.
    for origin in ("external", "internal"):
        names = [name for name, (kind, _options) in _TWINS.items() if kind == origin]
        plain = {k: v for k, v in entries[names[0]].items() if k != "name"}
        for name in names[1:]:
            twin = {k: v for k, v in entries[name].items() if k != "name"}
            if origin == "internal" and twin != plain:
                # A twin missing the reason field (or made to require it) differs by REASON-1's fault, not
                # by inserted metadata: the comparison needs both advertised with the optional string reason.
                pair = {n: entries[n].get("parameters") for n in (names[0], name)}
                precondition(
                    all(reason_problem(parameters) is None for parameters in pair.values()),
                    "REASON-1",
                    "both internal twins advertised with the optional string reason",
                    pair,
                )
            check(
                twin == plain,
                f"payload entry of {name} is that of {names[0]} but for its name: they differ only in registration "
                "metadata, which the payload does not carry",
                {names[0]: entries[names[0]], name: entries[name]},
                scenario,
            )
