"""The adapter contract is declared once, and everything that lists its methods agrees with it.

The declaration is :class:`pytest_toolconformance.host.contract.HostAdapter`; here it is held
against the things that could drift from it: the wire schemas (written by hand, read by hosts in
other languages), the reference host's facade and wire server, the wire client, the kit's client,
the host-spec check, and :class:`~pytest_toolconformance.UnsupportedHost` with the worked example
of docs/host-implementers.md.
"""

from __future__ import annotations

import inspect
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

import pytest_toolconformance
from pytest_toolconformance.host import contract
from pytest_toolconformance.host.client import HostClient
from pytest_toolconformance.host.connect import HostSpecError, load_host
from pytest_toolconformance.host.wire import protocol
from pytest_toolconformance.host.wire import reference_server as wire
from pytest_toolconformance.host.wire.client import WireHostAdapter
from reference_host import facade
from tests.paths import REPO

DOC = REPO / "docs" / "host-implementers.md"
SESSION_SPEC = {"identity": {"userId": "u1"}}


def _protocol_members() -> list[str]:
    return [name for name, value in vars(contract.HostAdapter).items()
            if not name.startswith("_") and inspect.isfunction(value)]


def test_the_declaration_is_the_protocol_in_order() -> None:
    assert list(contract.ADAPTER_METHODS) == _protocol_members()
    assert contract.ADAPTER_METHODS[0] == "info" and contract.ADAPTER_METHODS[-1] == "close"
    for method in contract.METHODS:
        assert method.needs <= set(contract.CAPABILITIES), method.name


@pytest.mark.parametrize("method", contract.WIRE_METHODS, ids=lambda m: m.name)
def test_each_wire_method_has_the_schema_its_declaration_says(method: contract.Method) -> None:
    params = protocol.schema(method.schema)["$defs"]["params"]
    properties = params.get("properties", {})
    assert set(params.get("required", [])) == {p.wire for p in method.params if p.required}
    assert set(properties) == {p.wire for p in method.params}
    for param in method.params:
        declared = properties[param.wire].get("type")
        if "$ref" in properties[param.wire]:  # the session id: a non-empty string
            declared = protocol.schema("common")["$defs"]["sessionId"]["type"]
        if param.json_type is None:
            assert declared is None, param
        elif param.required:
            assert declared == param.json_type, param
        else:
            assert declared == [param.json_type, "null"], param


def test_the_wire_vocabulary_is_the_declaration_framed_by_hello_and_stop() -> None:
    assert protocol.REQUESTS == ("hello", *(m.name for m in contract.WIRE_METHODS), "stop")
    assert {"info", "close"} == set(contract.ADAPTER_METHODS) - set(protocol.CONTRACT_METHODS)
    assert {p.stem for p in protocol.SCHEMAS_DIR.glob("*.json")} == {*protocol.REQUESTS, "common"}


@pytest.mark.parametrize("method", contract.METHODS, ids=lambda m: m.name)
def test_the_reference_facade_and_the_wire_client_take_the_declared_parameters(method: contract.Method) -> None:
    declared = [p.name for p in method.params]
    for implementation in (facade.JsonHost, WireHostAdapter, pytest_toolconformance.UnsupportedHost):
        signature = inspect.signature(getattr(implementation, method.name))
        assert [n for n in signature.parameters if n != "self"] == declared, implementation


def test_the_reference_wire_server_serves_every_declared_request_and_no_other(tmp_path: Path) -> None:
    out = io.BytesIO()
    server = wire.Server(out)
    lines = [{"method": "hello", "params": {"protocol": 1, "kit": "test"}}]
    assert server.handle(json.dumps({"seq": 0, **lines[0]}).encode())
    seq = 1
    for method in contract.WIRE_METHODS:
        params = {p.wire: {} if p.json_type == "object" else "x" for p in method.params if p.required}
        server.handle(json.dumps({"seq": seq, "method": method.name, "params": params}).encode())
        seq += 1
    server.handle(json.dumps({"seq": seq, "method": "temp_dir", "params": {}}).encode())
    server.close()
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["seq"] for a in answers] == list(range(seq + 1))
    for method, answer in zip(contract.WIRE_METHODS, answers[1:-1], strict=True):
        # Served: an answer of the contract (a result or a contract error), never "unknown method".
        assert answer.get("error", {}).get("kind") not in protocol.WIRE_ERROR_KINDS, (method.name, answer)
    assert answers[-1]["error"]["kind"] == "bad-request" and "unknown method" in answers[-1]["error"]["message"]


def test_a_missing_or_mistyped_param_is_a_bad_request() -> None:
    out = io.BytesIO()
    server = wire.Server(out)
    server.handle(b'{"seq":0,"method":"hello","params":{"protocol":1,"kit":"t"}}')
    server.handle(b'{"seq":1,"method":"set_policy","params":{"account":"u1"}}')
    server.handle(b'{"seq":2,"method":"set_policy","params":{"account":7,"changes":{}}}')
    server.close()
    first, second = (json.loads(line)["error"] for line in out.getvalue().splitlines()[1:])
    assert first["kind"] == second["kind"] == "bad-request"
    assert "params.changes is missing" in first["message"]
    assert "params.account must be str, got int" in second["message"]


class _Recorder(pytest_toolconformance.UnsupportedHost):
    """Answers every method with a shape the client accepts, and records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def info(self) -> dict[str, Any]:
        return {"name": "recorder", "version": "1", "capabilities": sorted(contract.CAPABILITIES)}

    def __getattribute__(self, name: str) -> Any:
        if name in contract.BY_NAME and name not in ("info", "reset", "close"):
            object.__getattribute__(self, "asked").append(name)
            return lambda *args: {"session": "s1", "ticket": "t1", "outcomes": []}
        return object.__getattribute__(self, name)


def test_the_client_asks_every_declared_method_through_its_declared_name() -> None:
    adapter = _Recorder()
    client = HostClient(adapter)
    client.install({"name": "p", "tools": []})
    client.set_policy("u1", admin=False)
    session = client.open(**SESSION_SPEC)
    asked_by_session = len(adapter.asked)
    session.compose()
    session.call("Echo", {})
    session.queue_call("Write", {})
    session.run_queued()
    session.access()
    session.identity()
    session.delegate()
    session.sandbox({"kind": "read", "path": "/workspace/a"})
    declared = {m.name for m in contract.METHODS if m.wire and m.name != "reset"}
    assert set(adapter.asked) == declared
    assert set(adapter.asked[asked_by_session:]) == {m.name for m in contract.METHODS if m.session_scoped}
    with pytest.raises(ValueError, match="not a method of the adapter contract"):
        client.ask("temp_dir")


def test_the_host_spec_check_names_every_declared_method_an_adapter_lacks(tmp_path: Path) -> None:
    (tmp_path / "halfway_adapter.py").write_text(
        "class Half:\n    def info(self):\n        return {}\n\n\ndef factory():\n    return Half()\n", "utf-8")
    with pytest.raises(HostSpecError) as caught:
        load_host("halfway_adapter:factory", search_paths=[tmp_path])
    missing = re.search(r"\(missing ([^)]*)\)", str(caught.value))
    assert missing is not None and missing.group(1).split(", ") == list(contract.ADAPTER_METHODS[1:])


# -- UnsupportedHost ---------------------------------------------------------------------------------
def test_unsupported_host_declares_nothing_and_answers_unsupported_to_everything() -> None:
    host = pytest_toolconformance.UnsupportedHost()
    assert host.info()["capabilities"] == []
    assert host.reset() is None and host.close() is None
    assert isinstance(host, contract.HostAdapter)
    for method in contract.METHODS:
        if method.name in ("info", "reset", "close"):
            continue
        args = ["x"] * sum(p.required for p in method.params)
        answer = getattr(host, method.name)(*args)
        assert answer["error"]["kind"] == "unsupported", method.name
        assert answer["error"]["subject"] == method.name
        assert method.needs_text() in answer["error"]["message"]


def test_a_subclass_overrides_only_what_it_has() -> None:
    class OnlyRegistration(pytest_toolconformance.UnsupportedHost):
        name = "only-registration"

        def __init__(self) -> None:
            self.inner = pytest_toolconformance.reference_adapter()

        def info(self) -> dict[str, Any]:
            return {"name": self.name, "version": "1", "capabilities": ["registration"]}

        def install_plugin(self, plugin: dict[str, Any]) -> dict[str, Any]:
            return self.inner.install_plugin(plugin)

    host = OnlyRegistration()
    try:
        report = host.install_plugin({"name": "demo", "tools": []})
        assert report["plugin"] == "demo" and "error" not in report
        refused = host.open_session(SESSION_SPEC)
        assert refused["error"]["kind"] == "unsupported"
        assert "'only-registration' does not declare any capability but registration" in refused["error"]["message"]
        # A suite asking for it is skipped, the missing capability named.
        with pytest.raises(pytest.skip.Exception, match="does not declare any capability but registration"):
            HostClient(host).open(**SESSION_SPEC)
    finally:
        host.inner.close()


def test_reference_adapter_is_fresh_each_time() -> None:
    first, second = pytest_toolconformance.reference_adapter(), pytest_toolconformance.reference_adapter()
    try:
        assert first is not second and first.host is not second.host
        assert set(first.info()["capabilities"]) == set(contract.CAPABILITIES)
    finally:
        first.close()
        second.close()


def _worked_example() -> str:
    section = DOC.read_text("utf-8").split("## A worked example", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the worked example is one python block"
    return blocks[0]


def test_the_worked_example_is_about_thirty_lines_of_unsupported_host() -> None:
    code = _worked_example()
    assert "(UnsupportedHost)" in code and "reference_adapter()" in code
    assert len(code.strip().splitlines()) <= 40


def test_the_worked_example_gives_a_green_run_that_names_every_missing_capability(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myhost_conformance=_worked_example())
    result = pytester.runpytest("--toolconformance", "--toolconformance-host=myhost_conformance:factory", "-rs",
                                "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert outcomes.get("passed", 0) > 0 and outcomes.get("skipped", 0) > 0
    assert not outcomes.get("failed") and not outcomes.get("errors") and not outcomes.get("error")
    reasons = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    assert reasons
    declared = {"registration", "composition"}
    for line in reasons:
        named = re.search(r"does not declare capability (.+?)(?: \(it answered .*\))?$", line)
        assert named is not None, line
        missing = set(re.findall(r"[\w-]+", named.group(1).replace(" or ", ", "))) - {"or"}
        assert missing and missing <= set(contract.CAPABILITIES) - declared, line


# -- docs/adapter-contract.md ------------------------------------------------------------------------
CONTRACT_DOC = DOC.with_name("adapter-contract.md")


def _table(heading: str) -> list[list[str]]:
    section = CONTRACT_DOC.read_text("utf-8").split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in row] for row in rows]


def test_the_contract_page_lists_every_method_with_the_capabilities_that_cover_it() -> None:
    rows = _table("The methods")
    assert [re.match(r"`(\w+)\(", row[0]).group(1) for row in rows] == list(contract.ADAPTER_METHODS)  # type: ignore[union-attr]
    for row, method in zip(rows, contract.METHODS, strict=True):
        assert [p.name for p in method.params] == re.findall(r"(\w+)[,)]", row[0]), row[0]
        column = row[-1]
        if not method.needs:
            assert column.startswith("(always"), row
        elif method.needs == contract.SESSION_CAPABILITIES:
            assert column == "any capability but `registration`", row
        else:
            assert set(re.findall(r"`([\w-]+)`", column)) == method.needs, row


def test_the_contract_page_lists_every_capability_and_error_kind() -> None:
    assert {row[0].strip("`"): row[1] for row in _table("Capabilities")} == contract.CAPABILITIES
    assert [row[0].strip("`") for row in _table("Errors")] == list(contract.ERROR_KINDS)


def test_an_exception_out_of_an_adapter_is_errored_not_failed(pytester: pytest.Pytester) -> None:
    """docs/adapter-contract.md: "An exception out of an adapter ... is a bug in the adapter: the check
    reports it as errored, not as a broken rule" (it was reported failed)."""
    pytester.makepyfile(raising_adapter='''
from pytest_toolconformance import UnsupportedHost, reference_adapter


class Raising(UnsupportedHost):
    def __init__(self):
        self.inner = reference_adapter()

    def info(self):
        return {**self.inner.info(), "capabilities": ["registration", "composition"]}

    def reset(self):
        return self.inner.reset()

    def install_plugin(self, plugin):
        return self.inner.install_plugin(plugin)

    def open_session(self, spec):
        return self.inner.open_session(spec)

    def compose(self, session):
        raise RuntimeError("the adapter lost its session table")


def factory():
    return Raising()
''')
    pytester.syspathinsert()
    result = pytester.runpytest_inprocess("--toolconformance", "--toolconformance-host=raising_adapter:factory",
                                          "-p", "no:cacheprovider", "-k", "REG-5")
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) >= 1 and not outcomes.get("failed"), outcomes
    result.stdout.fnmatch_lines(["*the adapter's compose() raised RuntimeError: the adapter lost its session table*"])
