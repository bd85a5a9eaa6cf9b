"""load_plugin: folders, manifests and entry files to a plugin with register(ctx), and its errors."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import confinement
from pytest_toolconformance.plugins.loaders import (
    LoadedPlugin,
    NodePlugin,
    PythonPlugin,
    load_plugin,
    load_python_plugin,
)
from reference_host.errors import PluginLoadError
from tests.paths import PLUGINS

PY = PLUGINS / "python"
# Python plugins run in a bridge process; in the kit's own only where none can run (both are the kit's).
IN_PROCESS = pytest.mark.parametrize("in_process", [False, True], ids=["bridged", "in-process"])
JS = PLUGINS / "js"


class Ctx:
    """The smallest ctx a Python plugin's register needs."""

    class Logger:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def info(self, msg: str) -> None:
            self.lines.append(msg)

        warning = error = info

    def __init__(self) -> None:
        self.logger = self.Logger()
        self.tools: list[Any] = []

    def register_tool(self, tool: Any, **options: Any) -> None:
        self.tools.append(tool)


def run_register(plugin: Any, ctx: Ctx) -> None:
    outcome = plugin.register(ctx)
    if inspect.isawaitable(outcome):
        asyncio.run(outcome)


def run_execute(tool: Any, params: dict[str, Any]) -> Any:
    outcome = tool.execute("c1", params)
    return asyncio.run(outcome) if inspect.isawaitable(outcome) else outcome


# ------------------------------------------------------------------------------ Python plugins


@IN_PROCESS
def test_python_entry_file_loads_and_registers(in_process: bool) -> None:
    loaded = load_plugin(PY / "conforming.py", in_process=in_process)
    assert isinstance(loaded, LoadedPlugin)
    assert (loaded.name, loaded.runtime, loaded.entry, loaded.manifest) == (
        "conforming",
        "python",
        PY / "conforming.py",
        None,
    )
    ctx = Ctx()
    run_register(loaded.plugin, ctx)
    assert [t.name for t in ctx.tools] == ["MyTool"]
    assert ctx.logger.lines == ["example tool registered"]
    # Same schema as the JS example's Type.Object({value: Type.String(...)}).
    assert ctx.tools[0].parameters == {
        "type": "object",
        "required": ["value"],
        "properties": {"value": {"type": "string", "description": "Text to return."}},
    }
    assert run_execute(ctx.tools[0], {"value": "hi"}) == {"content": [{"type": "text", "text": "hi"}], "details": {}}


@IN_PROCESS
def test_python_folder_with_manifest_imports_siblings_without_polluting_sys_path(in_process: bool) -> None:
    before = list(sys.path)
    for target in (PY / "manifested", PY / "manifested" / "plugin.json"):
        loaded = load_plugin(target, in_process=in_process)
        assert loaded.name == "manifested-python"
        assert loaded.runtime == "python"
        assert loaded.entry == PY / "manifested" / "tool.py"
        assert loaded.manifest is not None and loaded.manifest["provides"]["readOnlyTools"] == ["Upper"]
        ctx = Ctx()
        run_register(loaded.plugin, ctx)  # async register
        assert run_execute(ctx.tools[0], {"text": "abc"})["content"][0]["text"] == "ABC"
    assert sys.path == before


def test_a_fresh_python_instance_imports_the_plugins_modules_anew(tmp_path: Path) -> None:
    """A bridged Python plugin's fresh instance (each check gets one) starts from its
    initial module state, kept here in a sibling module, in the same process."""
    (tmp_path / "counter.py").write_text(
        "calls = 0\n\ndef next_call():\n    global calls\n    calls += 1\n    return calls\n"
    )
    (tmp_path / "plugin.py").write_text(
        "from counter import next_call\nfrom reference_host import define_tool\n\n"
        "def register(ctx):\n    ctx.register_tool(define_tool(name='Count', label='Count', description='Counts.',\n"
        "        parameters={'type': 'object', 'properties': {}},\n"
        "        execute=lambda call_id, params: {'content': [{'type': 'text', 'text': str(next_call())}],"
        " 'details': {}}))\n"
    )
    loaded = load_plugin(tmp_path / "plugin.py", in_process=False)
    plugin = loaded.plugin
    try:
        ctx = Ctx()
        run_register(plugin, ctx)
        texts = [run_execute(ctx.tools[0], {})["content"][0]["text"] for _ in range(3)]
        pid = plugin.pid
        plugin.fresh_instance()
        texts += [run_execute(ctx.tools[0], {})["content"][0]["text"] for _ in range(2)]
        assert texts == ["1", "2", "3", "1", "2"] and plugin.pid == pid
    finally:
        plugin.close()


def test_python_plugins_get_unique_module_names(tmp_path: Path) -> None:
    first = tmp_path / "a" / "plugin.py"
    second = tmp_path / "b" / "plugin.py"
    for path, value in ((first, "A"), (second, "B")):
        path.parent.mkdir()
        path.write_text(f"VALUE = {value!r}\n\ndef register(ctx):\n    pass\n")
    one, two = load_python_plugin(first), load_python_plugin(second)
    assert (one.VALUE, two.VALUE) == ("A", "B")
    assert one.__name__ != two.__name__ and one.__name__ in sys.modules
    assert "plugin" not in sys.modules or sys.modules["plugin"] not in (one, two)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def register(ctx)\n    pass\n", "SyntaxError"),
        ("import no_such_module_for_the_kit\n\ndef register(ctx):\n    pass\n", "No module named"),
        ("raise RuntimeError('top-level failure')\n", "RuntimeError: top-level failure"),
    ],
)
@IN_PROCESS
def test_python_load_errors_name_the_file(tmp_path: Path, source: str, expected: str, in_process: bool) -> None:
    entry = tmp_path / "bad_plugin.py"
    entry.write_text(source)
    with pytest.raises(PluginLoadError) as info:
        # In its bridge a plugin is imported when it is registered, as a JS one is.
        run_register(load_plugin(entry, in_process=in_process).plugin, Ctx())
    assert str(entry) in str(info.value) and expected in str(info.value)
    assert not any(name.startswith("_toolconformance_plugin_bad_plugin") for name in sys.modules)


@pytest.mark.parametrize(
    "entry", [PY / "reads_env_at_import.py", JS / "reads_env_at_import" / "index.mjs"], ids=["python", "js"]
)
def test_a_variable_the_scrub_withheld_is_named_with_the_option_that_passes_it(
    entry: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFORMANCE_SUBJECT_TOKEN", "set in the kit's environment")
    with pytest.raises(PluginLoadError) as info:
        run_register(load_plugin(entry).plugin, Ctx())
    message = str(info.value)
    assert "CONFORMANCE_SUBJECT_TOKEN" in message.split("\n", 1)[0]
    assert "scrubbed environment" in message and "CONFORMANCE_SUBJECT_TOKEN is set here" in message
    assert "pass it with --toolconformance-pass-env=CONFORMANCE_SUBJECT_TOKEN" in message
    # Passed, the plugin sees it and loads.
    confinement.set_pass_env(["CONFORMANCE_SUBJECT_TOKEN"])
    try:
        loaded = load_plugin(entry).plugin
        ctx = Ctx()
        run_register(loaded, ctx)
        assert [getattr(tool, "name", None) for tool in ctx.tools] == ["MyTool"]
    finally:
        confinement.set_pass_env(())
        loaded.close()


@IN_PROCESS
def test_python_module_without_register_is_not_a_plugin(in_process: bool) -> None:
    with pytest.raises(PluginLoadError, match=r"not_a_plugin\.py is not a plugin: it defines no register\(ctx\)"):
        run_register(load_plugin(PY / "not_a_plugin.py", in_process=in_process).plugin, Ctx())


def test_python_plugins_run_in_a_bridge_process_by_default() -> None:
    loaded = load_plugin(PY / "conforming.py")
    assert not loaded.in_process and isinstance(loaded.plugin, PythonPlugin)
    ctx = Ctx()
    modules = set(sys.modules)
    try:
        run_register(loaded.plugin, ctx)
        assert loaded.plugin.pid not in (None, os.getpid())
        assert [t.name for t in ctx.tools] == ["MyTool"] and ctx.logger.lines == ["example tool registered"]
        assert set(sys.modules) == modules  # nothing of the plugin was imported here
    finally:
        loaded.plugin.close()


# ---------------------------------------------------------------------------------- JS dispatch


@pytest.mark.parametrize(
    "target",
    [JS / "conforming", JS / "conforming" / "plugin.json", JS / "conforming" / "index.mjs"],
)
def test_js_targets_give_a_node_plugin_without_starting_node(target: Path) -> None:
    loaded = load_plugin(target, timeout=3.5)
    assert loaded.runtime == "node"
    assert loaded.entry == JS / "conforming" / "index.mjs"
    assert isinstance(loaded.plugin, NodePlugin)
    assert loaded.plugin.timeout == 3.5
    assert loaded.plugin.pid is None  # node starts on register, not on load
    assert loaded.name == "conforming"
    if target.name == "index.mjs":
        assert loaded.manifest is None
    else:
        assert loaded.manifest == json.loads((JS / "conforming" / "plugin.json").read_text())


def test_typescript_entry_is_a_node_plugin() -> None:
    loaded = load_plugin(JS / "typescript")
    assert loaded.runtime == "node" and loaded.entry.suffix == ".ts" and loaded.plugin.module_format == "ts"


@pytest.mark.parametrize(
    ("files", "entry", "kind"),
    [
        # pi's order (dist/core/extensions/loader.js resolveExtensionEntries): index.ts, then index.js.
        ({"index.ts": "", "index.js": ""}, "index.ts", "node"),
        ({"index.mjs": "", "index.js": ""}, "index.js", "node"),
        ({"index.ts": "", "plugin.py": "def register(ctx):\n    pass\n"}, "index.ts", "node"),
        ({"plugin.py": "def register(ctx):\n    pass\n"}, "plugin.py", "python"),
        # package.json's pi.extensions first, whatever "main" says (pi never reads main).
        (
            {
                "package.json": '{"main": "index.js", "pi": {"extensions": ["./src/ext.ts"]}}',
                "src/ext.ts": "",
                "index.js": "",
            },
            "src/ext.ts",
            "node",
        ),
        # A declared folder by its index; a declared path that is not there is passed over, as pi does.
        (
            {"package.json": '{"pi": {"extensions": ["./gone.ts", "./ext"]}}', "ext/index.ts": ""},
            "ext/index.ts",
            "node",
        ),
        # npm init's "main": "index.js" that is not there: the index.ts pi loads.
        ({"package.json": '{"main": "index.js"}', "index.ts": ""}, "index.ts", "node"),
        # "main" only where nothing pi reads is there.
        ({"package.json": '{"main": "lib/main.cjs"}', "lib/main.cjs": ""}, "lib/main.cjs", "node"),
    ],
)
def test_folder_without_manifest_finds_a_default_entry(
    tmp_path: Path, files: dict[str, str], entry: str, kind: str
) -> None:
    folder = tmp_path / "my-plugin"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    loaded = load_plugin(folder)
    assert (loaded.name, loaded.runtime, loaded.entry, loaded.manifest) == ("my-plugin", kind, folder / entry, None)


def test_manifest_without_entry_falls_back_and_keeps_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "plugin.json").write_text('{"provides": {"tools": []}}')
    (tmp_path / "index.js").write_text("")
    loaded = load_plugin(tmp_path)
    assert loaded.entry == tmp_path / "index.js"
    assert loaded.name == tmp_path.name  # no name in the manifest: the folder's
    assert loaded.manifest == {"provides": {"tools": []}}


# ------------------------------------------------------------------------------------- errors


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(PluginLoadError, match=r"does not exist; pass a plugin folder, its plugin\.json or an entry"):
        load_plugin(tmp_path / "nope")


def test_bad_manifest_json_names_line_and_column(tmp_path: Path) -> None:
    manifest = tmp_path / "plugin.json"
    manifest.write_text('{\n  "name": "x",\n  "entry": "index.mjs",\n}\n')
    with pytest.raises(PluginLoadError) as info:
        load_plugin(tmp_path)
    message = str(info.value)
    assert str(manifest) in message and "line 4, column 1" in message and "not valid JSON" in message


def test_manifest_must_be_an_object(tmp_path: Path) -> None:
    (tmp_path / "plugin.json").write_text("[]")
    with pytest.raises(PluginLoadError, match="must be a JSON object"):
        load_plugin(tmp_path)


def test_manifest_entry_that_does_not_exist(tmp_path: Path) -> None:
    (tmp_path / "plugin.json").write_text('{"name": "x", "entry": "src/index.mjs"}')
    with pytest.raises(PluginLoadError) as info:
        load_plugin(tmp_path / "plugin.json")
    assert "names entry 'src/index.mjs'" in str(info.value) and str(tmp_path / "src" / "index.mjs") in str(info.value)


def test_manifest_entry_must_be_a_string(tmp_path: Path) -> None:
    (tmp_path / "plugin.json").write_text('{"name": "x", "entry": 3}')
    with pytest.raises(PluginLoadError, match='"entry" must be a relative path string'):
        load_plugin(tmp_path)


def test_folder_without_anything_to_load(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hi")
    with pytest.raises(PluginLoadError) as info:
        load_plugin(tmp_path)
    assert str(tmp_path) in str(info.value) and 'or a plugin.json with "name" and "entry"' in str(info.value)


def test_package_json_main_that_does_not_exist(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"main": "dist/index.js"}')
    with pytest.raises(
        PluginLoadError, match=r"no pi extension in its package\.json .* no package\.json 'main' that exists"
    ):
        load_plugin(tmp_path)


def test_a_folder_is_named_by_its_package(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "package.json").write_text('{"name": "@someone/pi-goals", "pi": {"extensions": ["./goals.ts"]}}')
    (folder / "goals.ts").write_text("")
    assert load_plugin(folder).name == "pi-goals"


def test_several_pi_extensions_in_one_folder_are_each_checked(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "bundle"
    (folder / "extensions").mkdir(parents=True)
    (folder / "package.json").write_text(
        json.dumps({"name": "bundle", "pi": {"extensions": ["./extensions/a.mjs", "./extensions/b.mjs"]}})
    )
    for name in ("a", "b"):
        (folder / "extensions" / f"{name}.mjs").write_text("export function register(ctx) {}\n")
    result = pytester.runpytest("--toolconformance-plugin=bundle", "--co", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*test_plugin_loads*REG-1-a*", "*test_plugin_loads*REG-1-b*"])
    with pytest.raises(PluginLoadError, match=r"declares 2 pi extensions \(extensions/a\.mjs, extensions/b\.mjs\)"):
        load_plugin(folder)


def test_unknown_extension(tmp_path: Path) -> None:
    entry = tmp_path / "plugin.rb"
    entry.write_text("")
    with pytest.raises(PluginLoadError) as info:
        load_plugin(entry)
    assert str(entry) in str(info.value) and "'.rb'" in str(info.value) and ".mjs" in str(info.value)
    (tmp_path / "plugin.json").write_text('{"name": "rb", "entry": "plugin.rb"}')
    with pytest.raises(PluginLoadError, match="unknown extension"):
        load_plugin(tmp_path)
