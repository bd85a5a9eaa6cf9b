"""Registration, calls, results, origin, grants and manifest metadata: the checks JSON says badly.

The scenario files (scenarios/reg, schema, name, err, ext, grant, manifest) hold the single cases;
this module holds what they cannot say well: every combination of refusing pipeline stages
(REG-6), long call sequences (ERR-1, GRANT-1), generated arguments, details and manifests
(NAME-7, REG-4, REG-5, MANIFEST-1..3), and every winner/loser pairing of a name collision (EXT-3).

Refusal stages are read from the call answer's ``refusal.stage``: ``boundary``, ``plan``,
``grant`` (plugin grant and deny-list), ``hook``, ``validation`` (and ``lookup``, ``deferral``
before them).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.errors import HostProtocolError
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from pytest_toolconformance.profile import run_property
from pytest_toolconformance.suites.host.preconditions import origin_precondition, precondition

SECRET = "SECRET-5b1e-host-only"


def _contains(value: Any, needle: str) -> bool:
    """Whether any string (value or key) anywhere in ``value`` contains ``needle``."""
    if isinstance(value, str):
        return needle in value
    if isinstance(value, dict):
        return any(_contains(k, needle) or _contains(v, needle) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains(v, needle) for v in value)
    return False


def _tool_entry(composition: JSON, name: str, key: str = "tools") -> JSON | None:
    return next((t for t in composition.get(key) or [] if t.get("name") == name), None)


def _has_reason(entry: JSON | None) -> bool:
    params = (entry or {}).get("parameters") or {}
    return isinstance(params.get("properties"), dict) and "reason" in params["properties"]


# -- REG-6: every combination of refusing stages ------------------------------------------------------
#: Pipeline order (REG-6). "deny" is the account deny-list, part of the plugin grant stage.
STAGES = ("boundary", "plan", "grant", "deny", "hook", "validation")
STAGE_ANSWER = {"boundary": "boundary", "plan": "plan", "grant": "grant", "deny": "grant", "hook": "hook",
                "validation": "validation"}
COMBINATIONS = [c for n in range(len(STAGES) + 1) for c in itertools.combinations(STAGES, n)]
#: Stages whose refusal another rule owns: REG-6 is about their order, so a stage that does not
#: refuse even when it is the only one switched on blocks the check by its own rule.
STAGE_RULE = {"plan": "PLAN-2", "grant": "GRANT-1", "deny": "GRANT-1"}


def _combination_id(combo: tuple[str, ...]) -> str:
    return "+".join(combo) or "none"


def _stage_alone(client: HostClient, stage: str) -> JSON:
    """Call Act with only ``stage`` refusing, from an account of its own (policy is per account)."""
    account = f"user-alone-{stage}"
    if stage == "grant":
        client.set_policy(account, pluginGrants=[])
    if stage == "deny":
        client.set_policy(account, deny=["Act"])
    spec: JSON = {"identity": {"userId": account}}
    if stage == "plan":
        spec["mode"] = "plan"
    return client.open(**spec).call("Act", {"value": "x"})


@pytest.mark.toolconformance("REG-6")
@pytest.mark.parametrize("combo", COMBINATIONS, ids=[_combination_id(c) for c in COMBINATIONS])
def test_reg6_first_refusing_stage_wins(toolconformance_host: HostClient, combo: tuple[str, ...]) -> None:
    """Switch on any set of refusing stages: the earliest refuses, nothing after it runs."""
    toolconformance_host.require("registration", "calls", "hooks", "policy", "plan-mode")
    doc = plugin(
        "pipeline",
        [tool("Act", parameters=flat_schema({"value": "string"}), handler=[{"op": "text", "text": "Act ran"}])],
    )
    policy: JSON = {}
    if "grant" in combo:
        policy["pluginGrants"] = []
    if "deny" in combo:
        policy["deny"] = ["Act"]
    spec: JSON = {"identity": {"userId": "user-1"}}
    if "boundary" in combo:
        spec["permissions"] = {"deny": ["Act"]}
    if "plan" in combo:
        spec["mode"] = "plan"
    if "hook" in combo:
        spec["hooks"] = [{"tool": "Act", "decision": "deny", "message": "held by hook"}]
    arguments: JSON = {} if "validation" in combo else {"value": "x"}
    scenario = {
        "plugins": [doc],
        "policy": {"user-1": policy},
        "open": spec,
        "call": {"tool": "Act", "arguments": arguments},
    }

    toolconformance_host.install_ok(doc)
    if policy:
        toolconformance_host.set_policy("user-1", **policy)
    answer = toolconformance_host.open(**spec).call("Act", arguments)

    with origin_precondition(toolconformance_host):
        if not combo:
            check(
                answer.get("handlerRan") is True and answer.get("refusal") is None,
                "a call no stage refuses runs its handler",
                answer,
                scenario,
            )
            return
        expected = STAGE_ANSWER[combo[0]]
        refusal = answer.get("refusal") or {}
        if combo[0] in STAGE_RULE and (answer.get("handlerRan") is not False or refusal.get("stage") != expected):
            alone = _stage_alone(toolconformance_host, combo[0])
            precondition(
                alone.get("handlerRan") is False and (alone.get("refusal") or {}).get("stage") == expected,
                STAGE_RULE[combo[0]],
                f"the {combo[0]} stage alone to refuse Act (stage {expected!r})",
                alone,
            )
        check(
            answer.get("handlerRan") is False, f"stages {list(combo)} refuse: the handler never runs", answer, scenario
        )
        check(
            refusal.get("stage") == expected,
            f"with {list(combo)} refusing, the first in pipeline order refuses: stage {expected!r} "
            "(order: boundary, plan, grant and deny-list, hooks, validation)",
            refusal or answer,
            scenario,
        )
        if expected in ("boundary", "plan", "grant"):
            check(
                not answer.get("hooksRan"),
                f"no hook runs for a call the {expected} stage refused",
                answer.get("hooksRan"),
                scenario,
            )
        if expected == "validation":
            text = json.dumps(answer.get("content"), ensure_ascii=False)
            check(
                answer.get("isError") is False and "value" in text,
                "a breaking call is refused with a text result naming the parameters (value), not is_error",
                {"isError": answer.get("isError"), "content": answer.get("content")},
                scenario,
            )


# -- ERR-1: the session goes on -----------------------------------------------------------------------
FAULTY = plugin(
    "faulty",
    [
        tool("Boom", handler=[{"op": "throw", "message": "database exploded"}]),
        tool("Remote", handler=[{"op": "throw_transport", "message": "socket hang up"}]),
        tool(
            "Partial",
            handler=[
                {"op": "details", "details": {"k": 1}},
                {"op": "mutate", "set": {"x": 1}},
                {"op": "throw", "message": "half way"},
            ],
        ),
        tool("Steady", handler=[{"op": "text", "text": "Steady ran"}]),
        tool("Echo", parameters=flat_schema({"n": "integer"}), handler=[{"op": "echo"}]),
    ],
)
THROWERS = ("Boom", "Remote", "Partial")


@pytest.mark.toolconformance("ERR-1")
def test_err1_session_survives_any_sequence_of_throws(toolconformance_host: HostClient) -> None:
    """Any mix of throwing and working calls: every throw is is_error, every other call works, and
    the session's tool list is what it was."""
    toolconformance_host.require("registration", "composition", "calls")
    sequence = st.lists(st.sampled_from((*THROWERS, "Steady", "Echo")), min_size=2, max_size=16)

    def body(calls: list[str]) -> None:
        toolconformance_host.reset()
        toolconformance_host.install_ok(FAULTY)
        session = toolconformance_host.open()
        before = sorted(session.tool_names())
        scenario = {"plugins": [FAULTY], "calls": calls}
        for index, name in enumerate(calls):
            answer = session.call(name, {"n": index} if name == "Echo" else {})
            if name in THROWERS:
                check(
                    answer.get("isError") is True
                    and answer.get("handlerRan") is True
                    and (answer.get("modelResult") or {}).get("isError") is True,
                    f"call {index} ({name}, which throws) yields a tool result flagged is_error",
                    answer,
                    scenario,
                )
            else:
                check(
                    answer.get("isError") is False and answer.get("handlerRan") is True,
                    f"call {index} ({name}) works after the throws before it: the session goes on",
                    answer,
                    scenario,
                )
                if name == "Echo":
                    check(
                        json.loads(answer["content"][0]["text"]) == {"n": index},
                        f"call {index} (Echo) gets its own arguments",
                        answer.get("content"),
                        scenario,
                    )
        check(
            sorted(session.tool_names()) == before,
            "the tool list after the throws equals the one before",
            sorted(session.tool_names()),
            scenario,
        )
        fresh = toolconformance_host.open(identity={"userId": "user-2"})
        check(
            fresh.call("Steady").get("handlerRan") is True,
            "a new session works after another session's throws",
            None,
            scenario,
        )

    run_property(sequence, body, cap=25)


# -- NAME-7: generated nested arguments, mutated in place --------------------------------------------
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6))
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("abcxyz", max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
_args = st.fixed_dictionaries(
    {
        "outer": st.dictionaries(st.sampled_from(["inner", "gone", "keep"]), _json, min_size=0, max_size=3),
        "items": st.lists(
            st.dictionaries(st.sampled_from(["id", "file_path"]), _json, max_size=2), min_size=1, max_size=3
        ),
        "top": _json,
    },
    optional={"drop": _json, "reason": st.text(min_size=1, max_size=8)},
)
MUTATOR = tool(
    "Mutator",
    parameters={
        "type": "object",
        "properties": {"outer": {"type": "object"}, "items": {"type": "array"}, "top": {}, "drop": {}},
    },
    handler=[
        {
            "op": "mutate",
            "set": {
                "top": "CHANGED",
                "added": True,
                "/outer/inner": "CHANGED",
                "/outer/new": {"n": 1},
                "/items/0/file_path": "/etc/passwd",
                "/items/-": {"appended": True},
            },
            "delete": ["drop", "/outer/gone"],
        },
        {"op": "echo"},
    ],
)
MUTATOR_EXT = {**MUTATOR, "name": "mcp__srv__mutator", "options": {"external": True}}


@pytest.mark.toolconformance("NAME-7")
def test_name7_nested_mutations_never_reach_journal(toolconformance_host: HostClient) -> None:
    """Whatever nested arguments the model sends, a handler mutating them in place (top level,
    nested objects, array elements, appends, deletes) leaves the journal equal to what was sent."""
    toolconformance_host.require("registration", "calls")
    doc = plugin("muts", [MUTATOR, MUTATOR_EXT])
    toolconformance_host.install_ok(doc)
    session = toolconformance_host.open()
    probe = session.call("Mutator", {"outer": {"inner": "x"}, "items": [{}], "top": 0})
    seen = json.loads(((probe.get("content") or [{}])[0]).get("text") or "{}")
    if (seen.get("outer") or {}).get("inner") != "CHANGED":
        pytest.skip(
            "the host's scripted 'mutate' step does not take JSON Pointer keys ('/outer/inner'), so nested "
            f"in-place mutation cannot be driven (echo after mutate: {seen}); see the scripted plugin format"
        )

    def body(sent: JSON) -> None:
        pristine = json.loads(json.dumps(sent))
        for name in ("Mutator", "mcp__srv__mutator"):
            answer = session.call(name, sent)
            scenario = {"plugins": [doc], "call": {"tool": name, "arguments": pristine}}
            check(
                answer.get("handlerRan") is True, f"{name} runs (its schema admits these arguments)", answer, scenario
            )
            journaled = (answer.get("journal") or {}).get("arguments")
            check(
                journaled == pristine,
                "the journal records exactly the arguments the model sent, though the handler mutated them in place",
                journaled,
                scenario,
            )
            seen = json.loads(answer["content"][0]["text"])
            if seen.get("top") != "CHANGED" or seen.get("added") is not True:
                # Not NAME-7's failure: the host ran the scripted plugin other than the contract says.
                raise HostProtocolError(
                    f"the host's scripted 'mutate' step did not change the handler's params (echo: {seen}); "
                    "this check needs a host that runs scripted plugins as docs/adapter-contract.md says"
                )

    run_property(_args, body, cap=30)


# -- REG-4: generated details never reach the model ---------------------------------------------------
@st.composite
def _details(draw: st.DrawFn) -> JSON:
    """A details object with the secret somewhere: as a value or a key, up to four levels down."""
    details: JSON = draw(st.dictionaries(st.text("abc", max_size=3), _json, max_size=3))
    leaf: Any = {SECRET: draw(_scalars)} if draw(st.booleans()) else SECRET
    for _ in range(draw(st.integers(0, 3))):
        leaf = [draw(_json), leaf] if draw(st.booleans()) else {draw(st.text("xyz", max_size=2)): leaf}
    details[draw(st.sampled_from(["s", "t", "content", "isError"]))] = leaf
    return details


@pytest.mark.toolconformance("REG-4")
def test_reg4_generated_details_never_reach_model(toolconformance_host: HostClient) -> None:
    """details holding the secret anywhere (values, keys, nested): neither the model result nor the
    next provider payload carries it, for a normal, a shown, a failing and an external tool."""
    toolconformance_host.require("registration", "composition", "calls")

    def body(details: JSON) -> None:
        toolconformance_host.reset()
        step = {"op": "details", "details": details}
        doc = plugin(
            "vault",
            [
                tool("Quiet", handler=[step, {"op": "text", "text": "quiet answer"}]),
                tool("Loud", handler=[step, {"op": "text", "text": "loud answer"}]),
                tool("Failing", handler=[step, {"op": "throw", "message": "failed"}]),
                tool("mcp__v__ext", handler=[step, {"op": "text", "text": "external answer"}], external=True),
            ],
            manifest={"showOutput": ["Loud"]},
        )
        toolconformance_host.install_ok(doc)
        session = toolconformance_host.open()
        # The failing tool goes last, so a host that stops a session after a throw (ERR-1) does
        # not show up here as a REG-4 failure.
        for name in ("Quiet", "Loud", "mcp__v__ext", "Failing"):
            answer = session.call(name)
            scenario = {"plugins": [doc], "call": name}
            check(answer.get("handlerRan") is True, f"{name} runs", answer, scenario)
            check(
                not _contains(answer.get("modelResult"), SECRET),
                f"the result the model gets from {name} carries nothing of details",
                answer.get("modelResult"),
                scenario,
            )
        payload = session.compose().get("payload")
        check(
            not _contains(payload, SECRET),
            "the provider payload composed after the calls carries no details",
            payload,
            {"plugins": [doc], "calls": ["Quiet", "Loud", "mcp__v__ext", "Failing"], "then": "compose"},
        )

    run_property(_details(), body, cap=20)


# -- GRANT-1: the live policy decides every call ------------------------------------------------------
_policy_state = st.fixed_dictionaries(
    {
        "pluginGrants": st.sampled_from([[], ["*"], ["granted"], ["other"], ["other", "granted"]]),
        "deny": st.lists(st.sampled_from(["Act", "Sib", "mcp__g__ext"]), unique=True, max_size=3),
    }
)
_grant_steps = st.lists(
    st.tuples(_policy_state, st.sampled_from(["Act", "Sib", "mcp__g__ext"])), min_size=1, max_size=10
)
GRANTED = plugin("granted", [tool("Act"), tool("Sib"), tool("mcp__g__ext", external=True)])


@pytest.mark.toolconformance("GRANT-1")
def test_grant1_live_policy_decides_each_call(toolconformance_host: HostClient) -> None:
    """Change grants and deny-list between calls of one session: each call runs exactly when the
    policy in force at that moment grants the plugin and does not deny the tool."""
    toolconformance_host.require("registration", "calls", "policy")

    def body(steps: list[tuple[JSON, str]]) -> None:
        toolconformance_host.reset()
        toolconformance_host.install_ok(GRANTED)
        session = toolconformance_host.open()
        history: list[Any] = []
        for policy, name in steps:
            toolconformance_host.set_policy("user-1", **policy)
            history.append({"policy": policy, "call": name})
            answer = session.call(name)
            allowed = ("*" in policy["pluginGrants"] or "granted" in policy["pluginGrants"]) and name not in policy[
                "deny"
            ]
            scenario = {"plugins": [GRANTED], "steps": history}
            if allowed:
                check(
                    answer.get("handlerRan") is True,
                    f"{name} runs: the live policy grants plugin 'granted' and does not deny it",
                    answer,
                    scenario,
                )
            else:
                check(
                    answer.get("handlerRan") is False and (answer.get("refusal") or {}).get("stage") == "grant",
                    f"{name} is refused by the grant stage: the live policy lacks the grant or denies the tool",
                    answer,
                    scenario,
                )

    run_property(_grant_steps, body, cap=25)


# -- EXT-3: every winner/loser pairing ----------------------------------------------------------------
#: How a registration of "mcp__x__shared" is made: (external option, manifest provides).
KINDS: dict[str, tuple[bool, JSON]] = {
    "internal": (False, {}),
    "internal-ro": (False, {"tools": ["mcp__x__shared"], "readOnlyTools": ["mcp__x__shared"]}),
    "external": (True, {}),
    "external-ro": (True, {"tools": ["mcp__x__shared"], "readOnlyTools": ["mcp__x__shared"]}),
    "external-wildcard": (True, {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}),
}
SHARED = "mcp__x__shared"
SHARED_PARAMS = flat_schema({"q": "string"})


#: Bystanders: another plugin's external tools no collision touches. No plugin declares WILD, so a
#: wildcard that classifies it reads mcp__* wrongly (RO-1); a loser with exact read-only names also
#: names EXACT, so a foreign exact name that classifies it reads exact names wrongly (RO-3).
WILD, EXACT = "mcp__b__wild", "mcp__b__exact"
BYSTANDER = plugin("bystander", [tool(WILD, external=True), tool(EXACT, external=True)])


def _owner(plugin_name: str, kind: str, foreign: tuple[str, ...] = ()) -> JSON:
    external, provides = KINDS[kind]
    if foreign and "readOnlyTools" in provides and SHARED in provides["readOnlyTools"]:
        provides = {"tools": [*provides["tools"], *foreign], "readOnlyTools": [*provides["readOnlyTools"], *foreign]}
    manifest = {"provides": provides} if provides else None
    return plugin(
        plugin_name,
        [
            tool(
                SHARED,
                parameters=SHARED_PARAMS,
                external=external,
                handler=[{"op": "text", "text": f"{plugin_name} ran"}],
            )
        ],
        manifest=manifest,
    )


def _observe(session: Session) -> JSON:
    """The host's own metadata of SHARED, from compose's catalog: what EXT-3 is about. Its effects
    (reason, a read-only child, plan admission) are checked by their own rules. Also the bystanders'
    read-only classification, the preconditions RO-1 and RO-3."""
    catalog = session.compose()
    entry = _tool_entry(catalog, SHARED, "catalog")
    probes = {name: (_tool_entry(catalog, name, "catalog") or {}).get("readOnly") for name in (WILD, EXACT)}
    if entry is None:
        return {"inCatalog": False, "bystanders": probes}
    missing = sorted({"origin", "readOnly", "owner"} - set(entry))
    if missing:
        pytest.skip(
            f"the host does not report {', '.join(missing)} in compose's catalog entries, where EXT-3 reads "
            "the host's own metadata (see docs/host-implementers.md, 'Tool metadata in the catalog')"
        )
    return {
        "external": entry["origin"] == "external",
        "readOnly": entry["readOnly"],
        "owner": entry["owner"],
        "bystanders": probes,
    }


def _bystanders_unclassified(probes: JSON) -> None:
    """SHARED's metadata speaks for EXT-3 only while no wildcard and no foreign exact name classifies
    another plugin's tool: otherwise a leak is that rule's, whichever collision it meets."""
    precondition(
        probes.get(WILD) is not True, "RO-1", f"mcp__* to classify only its own plugin's tools, not {WILD}", probes
    )
    precondition(
        probes.get(EXACT) is not True, "RO-3", f"a foreign exact read-only name to classify nothing ({EXACT})", probes
    )


@pytest.mark.toolconformance("EXT-3")
@pytest.mark.parametrize("first,second", list(itertools.product(KINDS, KINDS)), ids=lambda k: str(k))
def test_ext3_metadata_follows_accepted_owner(toolconformance_host: HostClient, first: str, second: str) -> None:
    """A registration of each kind, then a colliding one of each kind: the tool has exactly the
    accepted owner's origin, read-only classification and owner, before the collision, after it and
    after a later unrelated merge; the other registration contributes nothing.

    Reading: the seed says a collision's rejected registration contributes nothing, not which one is
    rejected. The accepted owner is the one the install report says: the later registration is refused
    (first-wins) or accepted in the earlier one's place (last-wins). A host that declares its policy
    (``info().collisions``) is held to it; the report's refusal need not name a rule.
    """
    toolconformance_host.require("registration", "composition", "calls", "plan-mode", "delegation")
    earlier, later = _owner("winner", first), _owner("loser", second, foreign=(EXACT,))
    third = plugin(
        "later",
        [tool("mcp__y__other", external=True)],
        manifest={"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}},
    )
    scenario = {"plugins": [BYSTANDER, earlier, later, third], "collisions": toolconformance_host.collisions}

    toolconformance_host.install_ok(BYSTANDER)
    toolconformance_host.install_ok(earlier)
    session = toolconformance_host.open()
    before = _observe(session)
    report = toolconformance_host.install_ok(later)
    replaced = SHARED in (report.get("accepted") or [])
    refused = any(r.get("tool") == SHARED for r in report.get("refused") or [])
    declared = toolconformance_host.collisions
    check(
        replaced != refused and declared in (None, "last-wins" if replaced else "first-wins"),
        f"the install report accepts the colliding {SHARED} (last-wins) or refuses it (first-wins)"
        + (f", as the host's declared {declared} policy says" if declared else ""),
        {"accepted": report.get("accepted"), "refused": report.get("refused")},
        scenario,
    )
    toolconformance_host.install_ok(third)
    session = toolconformance_host.open()
    after = _observe(session)

    with origin_precondition(toolconformance_host):
        expected = {"winner": _metadata(first, "winner")}
        expected["after"] = _metadata(second, "loser") if replaced else expected["winner"]
        for observed, want in ((before, expected["winner"]), (after, expected["after"])):
            probes = observed.pop("bystanders")
            if observed != want:
                _bystanders_unclassified(probes)
        check(before == expected["winner"], f"the accepted {first} registration has its own metadata", before,
              scenario)
        kept, dropped = ("the later", "the earlier") if replaced else ("the earlier", "the later")
        check(
            after == expected["after"],
            f"after a {second} registration collides with a {first} one and a later merge, {SHARED} has {kept} "
            f"owner's metadata alone ({dropped} registration contributes neither origin nor read-only "
            "classification)",
            after,
            scenario,
        )


def _metadata(kind: str, owner: str) -> JSON:
    """What compose's catalog should say of SHARED when ``owner``'s registration of ``kind`` is in force."""
    external, provides = KINDS[kind]
    declared = provides.get("readOnlyTools", [])
    read_only = SHARED in declared or (external and "mcp__*" in declared)
    return {"external": external, "readOnly": read_only, "owner": owner}


# -- REG-5 / MANIFEST-3: generated manifests against registrations ------------------------------------
NAMES = ("Alpha", "Beta", "Gamma", "Delta")
_manifest_case = st.tuples(
    st.lists(st.sampled_from(NAMES), unique=True),  # registered
    st.lists(st.sampled_from(NAMES), unique=True),  # provides.tools
    st.lists(st.sampled_from(NAMES), unique=True),  # deferLoading / showOutput names
)


def _audit_plugin(registered: list[str], listed: list[str], others: list[str]) -> JSON:
    manifest: JSON = {"deferLoading": others, "showOutput": others}
    if listed:
        manifest["provides"] = {"tools": listed}
    return plugin("audit", [tool(n) for n in registered], manifest=manifest)


@pytest.mark.toolconformance("REG-5")
def test_reg5_catalog_gains_exactly_the_registrations(toolconformance_host: HostClient) -> None:
    """Any manifest (provides.tools, deferLoading and showOutput lists) against any registrations:
    the catalog gains exactly the registered names."""
    toolconformance_host.require("registration", "composition")
    baseline = set(toolconformance_host.open().catalog_names())

    def body(value: tuple[list[str], list[str], list[str]]) -> None:
        registered, listed, others = value
        toolconformance_host.reset()
        doc = _audit_plugin(registered, listed, others)
        toolconformance_host.install_ok(doc)
        catalog = set(toolconformance_host.open().catalog_names()) - baseline
        check(
            catalog == set(registered),
            f"the catalog gains exactly the registered tools {sorted(registered)}; provides and manifest lists "
            f"register nothing",
            sorted(catalog),
            {"plugins": [doc]},
        )

    run_property(_manifest_case, body, cap=25)


#: MANIFEST-3's cases: a REG-5 case, plus the names among them whose registration the host refuses (a
#: root combinator, SCHEMA-1): attempted, never registered, so listed ones are listed but not registered.
_audit_case = st.tuples(*(st.lists(st.sampled_from(NAMES), unique=True) for _ in range(3)),
                        st.lists(st.sampled_from(NAMES), unique=True, max_size=2))
_REFUSED_SCHEMA: JSON = {"type": "object", "properties": {}, "anyOf": [{"required": ["a"]}]}


def _audit_flags(report: JSON) -> set[Any]:
    return {f.get("tool") for f in report.get("findings") or [] if f.get("rule") == "MANIFEST-3"}


def _host_audits(client: HostClient) -> bool:
    """Whether the host reports audit findings at all: a plugin listing a tool it never registers and
    registering one it does not list, both mismatches of its own manifest. Decided once per host."""
    client.reset()
    report = client.install_ok(plugin("audit-probe", [tool("Alpha"), tool("Beta")],
                                      manifest={"provides": {"tools": ["Alpha", "Ghost"]}}))
    return bool(_audit_flags(report))


@pytest.mark.toolconformance("MANIFEST-3")
def test_manifest3_findings_are_listed_xor_registered(toolconformance_host: HostClient) -> None:
    """Any provides.tools against any registrations, some of them refused: registration is the live
    source (the install report accepts exactly the registered tools, never a refused one), and a host
    that reports audit findings names every tool listed but not registered, or registered but not
    listed, under MANIFEST-3, and no other, in every install report.

    Reading: the seed makes provides.tools "an audit declaration" and the registration "the source of
    the live contribution report"; it does not require a host to report the audit, so a host that reads
    no manifest and reports no MANIFEST-3 finding at all meets the rule. That exemption is the host's,
    decided once (a probe plugin with a mismatch of each kind): an auditing host's install report that
    says nothing of a mismatch is a missed finding, not a host that does not audit.
    """
    toolconformance_host.require("registration")
    audits = _host_audits(toolconformance_host)

    def body(value: tuple[list[str], list[str], list[str], list[str]]) -> None:
        attempted, listed, others, refused = value
        if not listed:
            return  # without provides.tools there is no audit declaration to compare
        toolconformance_host.reset()
        doc = _audit_plugin(attempted, listed, others)
        refusals = {n for n in refused if n not in attempted}
        doc["tools"] += [tool(n, parameters=_REFUSED_SCHEMA) for n in sorted(refusals)]
        registered = set(attempted)
        report = toolconformance_host.install_ok(doc)
        accepted = report.get("accepted")
        precondition(not set(accepted or ()) & refusals, "SCHEMA-1",
                     f"the host to refuse {sorted(refusals)}, local schemas with a root anyOf", accepted)
        check(
            accepted is None or set(accepted) == registered,
            f"the install report accepts exactly the registered tools {sorted(registered)} (provides.tools registers "
            "nothing; a refused registration registers nothing)",
            accepted,
            {"plugins": [doc]},
        )
        flagged = _audit_flags(report)
        mismatched = registered ^ set(listed)
        if not flagged and not audits:
            return  # a host that reports no audit findings at all (it may read no manifest)
        check(
            flagged == mismatched,
            f"MANIFEST-3 findings name exactly {sorted(mismatched)} (listed xor registered"
            + (", a refused registration counting as not registered)" if refusals else ")")
            + ("; this host reports audit findings, so every install report carries its own" if audits else ""),
            report.get("findings"),
            {"plugins": [doc]},
        )

    run_property(_audit_case, body, cap=25)


# -- MANIFEST-1 / MANIFEST-2: generated patterns and session sizes ------------------------------------
def _matches(pattern: bool | list[str], name: str) -> bool:
    """The manifest's tool-match semantics (manifest.schema.json): a trailing * matches by prefix."""
    if isinstance(pattern, bool):
        return pattern
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in pattern)


FAMILY = ("fam__a", "fam__b", "famous", "other", "fam_x")
_pattern = st.one_of(
    st.booleans(), st.lists(st.sampled_from([*FAMILY, "fam__*", "fam*", "oth*", "ghost"]), unique=True)
)


@pytest.mark.toolconformance("MANIFEST-1")
def test_manifest1_shown_exactly_where_show_output_matches(toolconformance_host: HostClient) -> None:
    """For any showOutput, a successful result is shown exactly when it matches the tool; an
    is_error result is always shown."""
    toolconformance_host.require("registration", "calls")

    def body(pattern: bool | list[str]) -> None:
        toolconformance_host.reset()
        tools = [tool(n) for n in FAMILY] + [tool("fam__boom", handler=[{"op": "throw", "message": "x"}])]
        doc = plugin("family", tools, manifest={"showOutput": pattern})
        toolconformance_host.install_ok(doc)
        session = toolconformance_host.open()
        for name in (*FAMILY, "fam__boom"):
            answer = session.call(name)
            error = name == "fam__boom"
            want = True if error else _matches(pattern, name)
            check(
                answer.get("shown") is want,
                f"{name} {'fails (is_error is always shown)' if error else 'succeeds'}: shown={want} under "
                f"showOutput={pattern}",
                answer,
                {"plugins": [doc], "call": name},
            )

    run_property(_pattern, body, cap=25)


@pytest.mark.toolconformance("MANIFEST-2")
def test_manifest2_defers_whatever_the_session_size(toolconformance_host: HostClient) -> None:
    """deferLoading defers its tools in a session of any size (1 to 24 plugin tools); overridden
    names, and every name with deferral switched off, are advertised."""
    toolconformance_host.require("registration", "composition", "deferral")
    sizes = st.integers(1, 24).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), max_size=n)))

    def body(value: tuple[int, set[int]]) -> None:
        count, overridden = value
        toolconformance_host.reset()
        names = [f"lazy_{i}" for i in range(count)]
        doc = plugin("lazy", [tool(n) for n in names], manifest={"deferLoading": True})
        toolconformance_host.install_ok(doc)
        overrides = sorted(names[i] for i in overridden)
        composed = toolconformance_host.open(deferral={"adminOverrides": overrides}).compose()
        scenario = {"plugins": [f"lazy with {count} tools, deferLoading: true"], "adminOverrides": overrides}
        for name in names:
            entry = _tool_entry(composed, name, "catalog") or {}
            advertised = _tool_entry(composed, name) is not None
            want_deferred = name not in overrides
            check(
                entry.get("deferred") is want_deferred and advertised is not want_deferred,
                f"{name} is {'deferred' if want_deferred else 'advertised (administrator override)'} in a session "
                f"with {count} plugin tools",
                {"catalog": entry, "inTools": advertised},
                scenario,
            )
        off = toolconformance_host.open(deferral={"enabled": False}).compose()
        undeferred = [n for n in names if _tool_entry(off, n) is not None]
        check(
            undeferred == names,
            "with deferral switched off every deferLoading tool is advertised",
            undeferred,
            {**scenario, "deferral": {"enabled": False}},
        )

    run_property(sizes, body, cap=15)
