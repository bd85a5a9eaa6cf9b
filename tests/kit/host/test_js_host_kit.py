"""The JavaScript host kit (pytest_toolconformance/host/js/): wire framing and the scripted-plugin builder.

The framing is driven through real Node.js processes with raw protocol lines; the builder's
seam-form modules are loaded by the kit's own Node bridge into the reference host and must behave
as the reference host's own interpreter of the same scripted plugin does.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.host import scripted
from pytest_toolconformance.host.wire import protocol
from pytest_toolconformance.plugins.loaders.node import NodePlugin
from reference_host.facade import JsonHost

KIT = Path(protocol.__file__).resolve().parents[1] / "js"
pytestmark = pytest.mark.node


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("needs Node.js on PATH")
    return found


def run_node(node: str, source: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([node, "--input-type=module", "-e", source], input=stdin, capture_output=True, text=True,
                          timeout=30, cwd=cwd)


def kit_url(name: str) -> str:
    return (KIT / name).as_uri()


# ------------------------------------------------------------------------------------ vocabulary


def test_methods_and_required_params_come_from_the_wire_schemas(node: str) -> None:
    out = run_node(node, f"""
        import {{ METHODS, PROTOCOL_VERSION, CONTRACT_ERROR_KINDS }} from {json.dumps(kit_url("wire.mjs"))};
        console.log(JSON.stringify({{ METHODS, PROTOCOL_VERSION, CONTRACT_ERROR_KINDS }}));""")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert set(got["METHODS"]) == set(protocol.REQUESTS)
    for method, required in got["METHODS"].items():
        assert required == protocol.schema(method)["$defs"].get("params", {}).get("required", []), method
    assert got["PROTOCOL_VERSION"] == protocol.PROTOCOL_VERSION
    assert set(got["CONTRACT_ERROR_KINDS"]) == set(protocol.CONTRACT_ERROR_KINDS)


# --------------------------------------------------------------------------------------- framing

PROBE_HOST = """
import {{ serve, error, Refusal }} from {wire};
serve({{
  name: "probe", version: "1", capabilities: ["composition"],
  operations: {{
    compose: async ({{ session }}) => {{
      console.log("a plugin printing to stdout");
      if (session === "refuse") return error("unknown-session", "no such session", {{ subject: session }});
      if (session === "throw-refusal") throw new Refusal("spec", "bad spec", {{ rule: "PLANFILE-1" }});
      if (session === "crash") throw new RangeError("boom");
      // The session id comes back in the diagnostics: a line separator in it must survive the trip.
      return {{ catalog: [], tools: [], payload: {{ tools: [] }}, diagnostics: {{ session }}, modeDirective: null }};
    }},
  }},
}});
"""


def exchange(
    node: str, tmp_path: Path, lines: list[str]
) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    host = tmp_path / "probe_host.mjs"
    host.write_text(PROBE_HOST.format(wire=json.dumps(kit_url("wire.mjs"))), "utf-8")
    done = subprocess.run(
        [node, str(host)], input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=30
    )
    return [json.loads(line) for line in done.stdout.split("\n") if line], done


HELLO = json.dumps({"seq": 0, "method": "hello", "params": {"protocol": 1, "kit": "0.1.0", "timeout": 5.0}})


def test_every_answer_repeats_its_seq_and_matches_its_schema(js_runtime: str, tmp_path: Path) -> None:
    answers, done = exchange(
        js_runtime,
        tmp_path,
        [
            HELLO,
            json.dumps({"seq": 1, "method": "reset", "params": {}}),
            json.dumps({"seq": 2, "method": "compose", "params": {"session": "s1"}}),
            json.dumps({"seq": 3, "method": "stop", "params": {}}),
        ],
    )
    assert done.returncode == 0, done.stderr
    assert [a["seq"] for a in answers] == [0, 1, 2, 3]
    for answer, method in zip(answers, ("hello", "reset", "compose", "stop"), strict=True):
        assert protocol.first_problem(method, "response", answer) is None, (method, answer)
    assert answers[0]["result"] == {"name": "probe", "version": "1", "protocol": 1, "capabilities": ["composition"]}
    # the plugin's print went to stderr, never into the protocol stream
    assert "a plugin printing to stdout" in done.stderr


def test_a_line_separator_in_a_request_survives_the_trip(js_runtime: str, tmp_path: Path) -> None:
    """U+2028 and U+2029 are line ends to Bun's readline; the kit writes them escaped."""
    from pytest_toolconformance.host.wire.protocol import encode

    session = "s\u2028one\u2029two"
    compose = encode({"seq": 2, "method": "compose", "params": {"session": session}}).decode().rstrip("\n")
    assert "\u2028" not in compose and "\\u2028" in compose
    reset = json.dumps({"seq": 1, "method": "reset", "params": {}})
    answers, done = exchange(js_runtime, tmp_path, [HELLO, reset, compose, json.dumps({"seq": 3, "method": "stop",
                                                                                     "params": {}})])
    assert done.returncode == 0, done.stderr
    assert [a["seq"] for a in answers] == [0, 1, 2, 3], answers
    assert answers[2]["result"]["diagnostics"]["session"] == session


@pytest.mark.parametrize(
    ("line", "kind", "says"),
    [
        ("not json", "bad-request", "not JSON"),
        ('{"seq": 1, "method": "compose", "params": {}}', "bad-request", "params.session is missing"),
        ('{"seq": 1, "method": "teleport", "params": {}}', "bad-request", "unknown method"),
        (
            '{"seq": 1, "method": "call", "params": {"session": "s", "tool": "t", "arguments": {}}}',
            "bad-request",
            "does not serve call",
        ),
        ('{"seq": 1, "method": "compose", "params": {"session": "refuse"}}', "unknown-session", "no such session"),
        ('{"seq": 1, "method": "compose", "params": {"session": "throw-refusal"}}', "spec", "bad spec"),
        ('{"seq": 1, "method": "compose", "params": {"session": "crash"}}', "internal", "RangeError: boom"),
    ],
)
def test_refusals_and_faults_are_answered_with_their_kind(
    js_runtime: str, tmp_path: Path, line: str, kind: str, says: str
) -> None:
    answers, done = exchange(js_runtime, tmp_path, [HELLO, line])
    assert done.returncode == 0, done.stderr
    error = answers[1]["error"]
    assert (error["kind"], says in error["message"]) == (kind, True), error
    assert protocol.first_problem("compose", "response", {**answers[1], "seq": 1}) is None


def test_a_request_before_the_hello_is_refused(js_runtime: str, tmp_path: Path) -> None:
    answers, _ = exchange(js_runtime, tmp_path, [json.dumps({"seq": 0, "method": "reset", "params": {}})])
    assert answers[0]["error"]["kind"] == "bad-request" and "before hello" in answers[0]["error"]["message"]


def test_an_older_protocol_is_refused_at_the_hello(js_runtime: str, tmp_path: Path) -> None:
    answers, _ = exchange(
        js_runtime, tmp_path, [json.dumps({"seq": 0, "method": "hello", "params": {"protocol": 0, "kit": "x"}})]
    )
    assert answers[0]["error"]["kind"] == "bad-request" and "speaks protocol 1" in answers[0]["error"]["message"]


def test_an_operation_for_a_method_the_protocol_lacks_fails_at_start(node: str) -> None:
    out = run_node(
        node,
        f"""
        import {{ serve }} from {json.dumps(kit_url("wire.mjs"))};
        serve({{ name: "x", version: "1", capabilities: [], operations: {{ teleport: async () => ({{}}) }} }});""",
    )
    assert out.returncode != 0 and "teleport is not a method of wire protocol 1" in out.stderr


# ------------------------------------------------------------------------------ scripted plugins


def build(node: str, doc: dict[str, Any], form: str) -> str:
    out = run_node(
        node,
        f"""
        import {{ buildPluginSource }} from {json.dumps(kit_url("scripted.mjs"))};
        let text = ""; for await (const chunk of process.stdin) text += chunk;
        process.stdout.write(buildPluginSource(JSON.parse(text), {json.dumps(form)}));""",
        stdin=json.dumps(doc),
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_builder_refuses_what_is_not_a_scripted_plugin(node: str) -> None:
    out = run_node(
        node,
        f"""
        import {{ buildPluginSource }} from {json.dumps(kit_url("scripted.mjs"))};
        buildPluginSource({{ name: "x", tools: [{{ name: "T" }}] }}, "seam");""",
    )
    assert out.returncode != 0 and 'tools[0] needs "parameters"' in out.stderr


def test_the_pi_form_is_a_default_export_and_the_seam_form_a_register(node: str) -> None:
    doc = scripted.plugin("forms", [scripted.tool("T")])
    assert "export default async function (pi)" in build(node, doc, "pi")
    seam = build(node, doc, "seam")
    assert "export async function register(ctx)" in seam and '"@earendil-works/pi-coding-agent"' in seam


ECHO = {"type": "object", "properties": {"value": {"type": "string"}, "n": {"type": "integer"}}}
CASES = [
    (scripted.tool("Echo", parameters=ECHO, handler=[{"op": "echo"}]), {"value": "héllo 😀", "n": 3}),
    (scripted.tool("Text", handler=[{"op": "details", "details": {"k": 1}}, {"op": "text", "text": "plain"}]), {}),
    (
        scripted.tool(
            "Mutate",
            parameters={"type": "object", "properties": {"a": {"type": "object"}}},
            handler=[{"op": "mutate", "set": {"/a/b": 2, "c": [1]}, "delete": ["/a/x"]}, {"op": "echo"}],
        ),
        {"a": {"x": 1, "y": [1, 2]}},
    ),
    (scripted.tool("Throw", handler=[{"op": "throw", "message": "scripted boom"}]), {}),
    (scripted.tool("Remote", handler=[{"op": "throw_transport", "message": "socket hang up"}]), {}),
    (scripted.tool("Probe", handler=[{"op": "transport_probe"}]), {}),
    (
        scripted.tool(
            "Image",
            handler=[
                {
                    "op": "image",
                    "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9"
                            "awAAAABJRU5ErkJggg==",
                    "mimeType": "image/png",
                }
            ],
        ),
        {},
    ),
    (
        scripted.tool(
            "Raw", handler=[{"op": "raw", "result": {"content": [{"type": "text", "text": "raw"}], "details": {}}}]
        ),
        {},
    ),
    (scripted.tool("Default", handler=[{"op": "sleep", "seconds": 0}]), {}),
]
_COMPARED = ("content", "isError", "handlerRan", "transport", "journal", "refusal", "modelResult", "details")


@pytest.mark.parametrize(("spec", "arguments"), CASES, ids=[c[0]["name"] for c in CASES])
def test_a_seam_form_module_behaves_as_the_reference_interpreter(
    node: str, tmp_path: Path, spec: dict[str, Any], arguments: dict[str, Any]
) -> None:
    doc = scripted.plugin("built", [spec], manifest={"provides": {"tools": [spec["name"]]}})
    entry = tmp_path / "built.mjs"
    entry.write_text(build(node, doc, "seam"), "utf-8")
    native, through_js = JsonHost(), JsonHost()
    module = NodePlugin(entry, timeout=10, node=node)
    try:
        assert "error" not in native.install_plugin(doc)
        report = through_js.host.install_plugin(module, manifest=doc["manifest"]).as_dict()
        assert report["accepted"] == [spec["name"]], report
        outcomes = []
        for host in (native, through_js):
            session = host.open_session({"identity": {"userId": "u1"}})["session"]
            outcome = host.call(session, spec["name"], json.loads(json.dumps(arguments)), "c1")
            outcomes.append({k: outcome.get(k) for k in _COMPARED})
        if outcomes[0]["isError"]:
            # The Node bridge names a JS error by its own wrapper class (PluginToolError: ...): the
            # thrown message is what both must carry.
            for outcome in outcomes:
                text = outcome.pop("content")[0]["text"]
                outcome["modelResult"].pop("content")
                assert spec["handler"][0]["message"] in text, text
        assert outcomes[1] == outcomes[0]
    finally:
        module.close()
        native.close()
        through_js.close()
