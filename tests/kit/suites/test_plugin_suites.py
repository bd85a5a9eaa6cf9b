"""The plugin suites against the example plugins in tests/subjects/plugins/, run as a plugin author would.

Conforming plugins pass; each broken plugin fails on its rule alone (the failing tests' rule
properties are exactly that rule); advisory findings are shown, never failed; a plugin that hangs,
throws on load, exits or is no plugin at all is one clear failure within the timeout, and the rest
of the run goes on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import bounds
from pytest_toolconformance.options import DEFAULT_TIMEOUT
from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR
from tests.paths import NODE_MODULES, PLUGINS

JS, PY, TS = PLUGINS / "js", PLUGINS / "python", PLUGINS / "ts"
# Generous for healthy plugins on a loaded machine; the faulty-plugin run uses the kit's default.
TIMEOUT = 10
#: Plugins that hang get the kit's default bound, as a user's would: the correct plugins and tools of the
#: same run must not depend on the machine's load.
FAULT_TIMEOUT = DEFAULT_TIMEOUT
BASE_ARGS = (
    "--toolconformance",
    "-p", "no:cacheprovider",
    "--toolconformance-max-examples=5",
    "--toolconformance-seed=1",
)


@dataclass
class Outcome:
    nodeid: str
    outcome: str
    rules: list[str]
    plugin: str | None
    tool: str | None
    advisories: list[str]
    properties: list[tuple[str, Any]]
    message: str


@dataclass
class Run:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0
    #: The load factor the run calibrated at start: its plugin steps' bounds are the timeout times this.
    factor: float = 1.0

    def bound(self, timeout: float) -> float:
        """The bound the run gave a plugin step for ``timeout`` (stretched on a loaded machine)."""
        return round(timeout * self.factor, 1)

    def failed(self, plugin: str | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if o.outcome == "failed" and (plugin is None or o.plugin == plugin)]

    def passed(self, plugin: str | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if o.outcome == "passed" and (plugin is None or o.plugin == plugin)]

    def failed_rules(self, plugin: str | None = None) -> set[str]:
        return {rule for o in self.failed(plugin) for rule in o.rules}

    def advisories(self) -> list[str]:
        return [a for o in self.outcomes for a in o.advisories]

    def describe(self) -> str:
        return "\n".join(f"{o.outcome.upper()} {o.nodeid.split('::')[-1]}: {o.message[-600:]}" for o in self.failed())


def run_suites(pytester: pytest.Pytester, *plugins: Path, extra: tuple[str, ...] = ()) -> Run:
    """Run only the plugin suites against ``plugins``, in-process, and collect every test's outcome."""
    timeout = () if any(e.startswith("--toolconformance-timeout") for e in extra) else (
        f"--toolconformance-timeout={TIMEOUT}",)
    args = [*BASE_ARGS, *timeout, *(f"--toolconformance-plugin={p}" for p in plugins), *extra, str(PLUGIN_SUITES_DIR)]
    started = time.monotonic()
    reprec = pytester.inline_run(*args)
    run = Run(seconds=time.monotonic() - started)
    # The run's own config (the recorder is attached after pytest_configure, so it records none of it).
    finished = reprec.getcalls("pytest_sessionfinish")
    if finished:
        run.factor = bounds.of(finished[0].session.config).factor
    seen: dict[str, Outcome] = {}
    for report in reprec.getreports("pytest_runtest_logreport"):
        if report.when != "call" and not (report.failed or report.skipped):
            continue
        props = list(report.user_properties)
        outcome = Outcome(
            nodeid=report.nodeid,
            # A step out of time is errored (wire outcomes' attribute), never a rule's failure.
            outcome="errored" if report.failed and getattr(report, "toolconformance_errored", None) else report.outcome,
            rules=[str(v) for k, v in props if k == "rule"],
            plugin=next((str(v) for k, v in props if k == "plugin"), None),
            tool=next((str(v) for k, v in props if k == "tool"), None),
            advisories=[str(v) for k, v in props if k == "advisory"],
            properties=props,
            message=report.longreprtext if report.failed else (
                str(report.longrepr[2]) if report.skipped and isinstance(report.longrepr, tuple) else ""),
        )
        # One outcome per test: a failed teardown after a passed call still counts as failed.
        if report.nodeid not in seen or outcome.outcome in ("failed", "errored"):
            seen[report.nodeid] = outcome
    run.outcomes = list(seen.values())
    return run


# -- conforming plugins ---------------------------------------------------------------------------

CONFORMING = [
    pytest.param(JS / "conforming", "conforming", True, id="js-seam-example"),
    pytest.param(JS / "conforming_rich", "conforming_rich", True, id="js-rich"),
    pytest.param(TS / "conforming", "conforming_ts", True, id="ts"),
    # require() of pi's helpers from the kit's stand-in (Node 20 cannot require() its ES modules).
    pytest.param(JS / "commonjs_pi_helpers" / "index.cjs", "commonjs_pi_helpers", True, id="js-commonjs-pi-helpers"),
    pytest.param(PY / "conforming.py", "conforming", False, id="python-seam-example"),
    pytest.param(PY / "conforming_rich", "conforming_rich_py", False, id="python-rich"),
]


@pytest.mark.parametrize(("path", "name", "needs_node"), CONFORMING)
def test_conforming_plugin_passes(pytester: pytest.Pytester, request: pytest.FixtureRequest, path: Path, name: str,
                                  needs_node: bool) -> None:
    if needs_node:
        request.getfixturevalue("node_ready")
    run = run_suites(pytester, path)
    assert not run.failed(), run.describe()
    passed = run.passed(name)
    assert passed, "the plugin suites ran no test"
    rules = {r for o in passed for r in o.rules}
    # Every always-decidable plugin rule ran and passed.
    assert {"REG-1", "REG-2", "REG-3", "SCHEMA-1", "SCHEMA-2", "SCHEMA-4", "NAME-1", "NAME-6", "ERR-2", "COST-2",
            "GRANT-2"} <= rules, sorted(rules)


def test_rich_conforming_plugins_exercise_every_call_rule(pytester: pytest.Pytester, node_ready: str) -> None:
    """The rich examples reach the rules that need a matching tool: a choice, the network, echoed access."""
    run = run_suites(pytester, JS / "conforming_rich", PY / "conforming_rich")
    assert not run.failed(), run.describe()
    passed = {(o.plugin, o.tool, r) for o in run.passed() for r in o.rules}
    for plugin in ("conforming_rich", "conforming_rich_py"):
        assert (plugin, "FetchQuote", "ERR-3") in passed
        assert (plugin, "FetchQuote", "ERR-4") in passed
        assert (plugin, "WhoAmI", "SCOPE-4") in passed
    assert ("conforming_rich", "ShareDiagram", "SCHEMA-3") in passed


# -- one broken plugin per plugin rule ------------------------------------------------------------

BROKEN = [
    ("SCHEMA-4", JS / "broken_schema_4_same_answer", "broken_schema_4_same_answer"),
    ("REG-1", JS / "broken_reg_1", "broken_reg_1"),
    ("REG-2", JS / "broken_reg_2", "broken_reg_2"),
    ("REG-3", JS / "broken_reg_3", "broken_reg_3"),
    ("REG-3", PY / "broken_reg_3.py", "broken_reg_3"),
    ("SCHEMA-1", JS / "broken_schema_1", "broken_schema_1"),
    ("SCHEMA-2", JS / "broken_schema_2", "broken_schema_2"),
    ("SCHEMA-3", JS / "broken_schema_3", "broken_schema_3"),
    ("SCHEMA-4", JS / "broken_schema_4", "broken_schema_4"),
    ("NAME-1", JS / "broken_name_1", "broken_name_1"),
    ("NAME-1", PY / "broken_name_1.py", "broken_name_1"),
    ("NAME-2", JS / "broken_name_2", "broken_name_2"),
    ("NAME-3", JS / "broken_name_3", "broken_name_3"),
    ("NAME-4", JS / "broken_name_4", "broken_name_4"),
    ("NAME-5", JS / "broken_name_5", "broken_name_5"),
    ("NAME-6", JS / "broken_name_6", "broken_name_6"),
    ("NAME-6", JS / "broken_name_6_all_optional", "broken_name_6_all_optional"),
    ("ERR-2", JS / "broken_err_2", "broken_err_2"),
    ("ERR-2", JS / "broken_err_2_unknown_only", "broken_err_2_unknown_only"),
    ("ERR-3", JS / "broken_err_3", "broken_err_3"),
    ("ERR-3", PY / "broken_err_3.py", "broken_err_3"),
    ("ERR-4", JS / "broken_err_4", "broken_err_4"),
    ("SCOPE-4", JS / "broken_scope_4", "broken_scope_4"),
    ("SCOPE-4", JS / "broken_scope_4_cached", "broken_scope_4_cached"),
    ("MANIFEST-3", JS / "broken_manifest_3", "broken_manifest_3"),
]


@pytest.mark.parametrize(
    ("rule", "path", "name"),
    [pytest.param(*b, id=f"{b[0]}-{b[1].parent.name}-{b[1].stem}") for b in BROKEN],
)
def test_broken_plugin_fails_on_its_rule_alone(pytester: pytest.Pytester, request: pytest.FixtureRequest, rule: str,
                                               path: Path, name: str) -> None:
    if path.parent.name == "js":
        request.getfixturevalue("node_ready")
    run = run_suites(pytester, path)
    assert run.failed(), f"{path.name} breaks {rule} but nothing failed"
    assert run.failed_rules() == {rule}, run.describe()
    for outcome in run.failed():
        assert outcome.plugin == name
        # The message names the rule, so a red test leads back to it.
        assert f"[{rule}]" in outcome.message, outcome.message


def test_every_plugin_rule_has_a_broken_example() -> None:
    from pytest_toolconformance.rules import all_rules

    plugin_rules = {r.id for r in all_rules().values() if r.binds == "plugin"} | {"SCHEMA-1", "MANIFEST-3"}
    advisory_only = {"GRANT-2"}
    # COST-2 fails only under a budget: test_tool_budget_turns_an_overrun_into_a_failure.
    covered = {b[0] for b in BROKEN} | advisory_only | {"COST-2"}
    assert plugin_rules <= covered, sorted(plugin_rules - covered)


def test_failure_prints_a_minimal_reproduction(pytester: pytest.Pytester, node_ready: str) -> None:
    run = run_suites(pytester, JS / "broken_schema_4")
    (failure,) = run.failed()
    assert failure.nodeid.endswith("test_handler_validates_again[SCHEMA-4-broken_schema_4-Double]")
    assert "reproduce: call Double with" in failure.message
    assert "handing them to its execute directly" in failure.message
    # The finding alone: no kit frames, no Hypothesis example dump; a rerun line with the seed instead.
    assert failure.message.startswith("[SCHEMA-4] tool Double of plugin broken_schema_4: expected ")
    assert "Falsifying example" not in failure.message and "Failing test case" not in failure.message
    assert "Traceback" not in failure.message
    assert "subject.py" not in failure.message and "under_test.py" not in failure.message
    rerun = '--toolconformance-seed=1 -k "SCHEMA-4-broken_schema_4-Double]"'
    assert failure.message.rstrip().endswith(rerun), failure.message
    # --tb=long keeps everything, Hypothesis' minimal example included: here one of the calls tried
    # first, each parameter wrong-typed ("Falsifying explicit example"; a generated one reads
    # "Falsifying example" up to 6.16x, "Failing test case" since).
    (long,) = run_suites(pytester, JS / "broken_schema_4", extra=("--tb=long",)).failed()
    assert any(
        words in long.message for words in ("Falsifying explicit example", "Falsifying example", "Failing test case")
    ), long.message


def test_name_finding_says_exactly_what_to_rename(pytester: pytest.Pytester, node_ready: str) -> None:
    run = run_suites(pytester, JS / "broken_name_1")
    (failure,) = run.failed()
    assert failure.nodeid.endswith("test_file_target_name[NAME-1-broken_name_1-ReadNote]")
    assert "rename parameter `filePath` of tool ReadNote to `file_path` (NAME-1)" in failure.message


# -- advisories -----------------------------------------------------------------------------------

ADVISORY = [
    pytest.param("SCHEMA-2", JS / "advisory_schema_2", "`payload` has no type", id="SCHEMA-2-other-kinds"),
    pytest.param(
        "GRANT-2", JS / "advisory_grant_2", "refuses callers that are not the instance owner", id="GRANT-2-owner-check"
    ),
    pytest.param(
        "NAME-6", JS / "conforming", "accepted an unknown parameter beside correct ones", id="NAME-6-accepted-extra"
    ),
]


@pytest.mark.parametrize(("rule", "path", "text"), ADVISORY)
def test_advisory_is_shown_not_failed(
    pytester: pytest.Pytester, node_ready: str, rule: str, path: Path, text: str
) -> None:
    run = run_suites(pytester, path)
    assert not run.failed(), run.describe()
    advisories = run.advisories()
    assert any(a.startswith(f"[{rule}]") and text in a for a in advisories), advisories


def test_advisories_survive_warnings_as_errors(pytester: pytest.Pytester, node_ready: str) -> None:
    # pytest-benchmark warns when xdist is active, and -W error would turn that into a usage error
    # that collects nothing; this test is about our advisories only.
    run = run_suites(pytester, JS / "advisory_grant_2", extra=("-W", "error", "-p", "no:benchmark"))
    assert run.outcomes, "the run under -W error collected no test"
    assert not run.failed(), run.describe()
    assert any(a.startswith("[GRANT-2]") for a in run.advisories())


@pytest.mark.parametrize("family", ["xunit1", "xunit2", "legacy"])
def test_junitxml_under_warnings_as_errors_leaves_a_correct_plugin_green(
    pytester: pytest.Pytester, node_ready: str, family: str
) -> None:
    """Docs/ci.md's recipe (--junitxml) with filterwarnings = error, under every junit
    family: the kit itself triggers no warning (COST-2 recorded its bytes through record_property,
    which warns under xunit2, pytest's default)."""
    report = pytester.path / f"junit-{family}.xml"
    run = run_suites(
        pytester,
        JS / "conforming",
        extra=("-W", "error", "-p", "no:benchmark", f"--junitxml={report}", "-o", f"junit_family={family}"),
    )
    assert run.outcomes and not run.failed(), run.describe()
    assert not [o for o in run.outcomes if o.outcome == "errored"], [o.nodeid for o in run.outcomes]
    cost = [o for o in run.outcomes if "COST-2" in o.rules]
    assert cost and all(o.outcome == "passed" for o in cost), cost
    assert "advertised_bytes" in report.read_text() or family == "xunit2"


def test_terminal_summary_lists_plugins_bytes_and_advisories(pytester: pytest.Pytester, node_ready: str) -> None:
    result = pytester.runpytest(
        *BASE_ARGS,
        f"--toolconformance-timeout={FAULT_TIMEOUT}",
        f"--toolconformance-plugin={JS / 'advisory_grant_2'}",
        f"--toolconformance-plugin={JS / 'hang_register'}",
        str(PLUGIN_SUITES_DIR),
    )
    result.stdout.fnmatch_lines(
        [
            "*toolconformance: plugins under test*",
            "advisory_grant_2 (*): node plugin, 1 tool(s) installed; sandbox: *",
            "hang_register (*): NOT LOADED: *did not finish within*",
            "*toolconformance: advertised bytes per tool (COST-2)*",
            "plugin *tool *bytes",
            "advisory_grant_2 *ResetCounters *",
            "*toolconformance: plugin advisories (not failures)*",
            "[[]GRANT-2[]] advisory_grant_2/ResetCounters: refuses callers*",
        ]
    )
    # Told once: the kit's section, not pytest's warnings summary as well.
    assert result.stdout.str().count("refuses callers") == 1, result.stdout.str()
    assert "ToolConformanceAdvisory" not in result.stdout.str()


# -- COST-2 ---------------------------------------------------------------------------------------


def test_advertised_bytes_are_reported(pytester: pytest.Pytester, node_ready: str) -> None:
    run = run_suites(pytester, JS / "broken_cost_2")
    assert not run.failed(), run.describe()
    (cost,) = [o for o in run.outcomes if "COST-2" in o.rules]
    sizes = [v for k, v in cost.properties if k == "advertised_bytes"]
    assert sizes and sizes[0] > 4000, sizes


def test_tool_budget_turns_an_overrun_into_a_failure(pytester: pytest.Pytester, node_ready: str) -> None:
    run = run_suites(pytester, JS / "broken_cost_2", JS / "conforming", extra=("--toolconformance-tool-budget=2000",))
    assert run.failed_rules() == {"COST-2"}, run.describe()
    (failure,) = run.failed()
    assert failure.plugin == "broken_cost_2" and "at most 2000 advertised bytes" in failure.message


# -- plugins that hang, crash or are no plugin ----------------------------------------------------


def test_faulty_plugins_are_reported_and_the_run_goes_on(pytester: pytest.Pytester, node_ready: str) -> None:
    faulty = [
        JS / "hang_register",
        JS / "throws_on_load",
        JS / "not_a_plugin",
        JS / "exits",
        JS / "hang_call",
        PY / "not_a_plugin.py",
        PY / "hangs_in_call.py",
        PY / "hangs_in_register.py",
    ]
    run = run_suites(pytester, JS / "conforming", *faulty, extra=(f"--toolconformance-timeout={FAULT_TIMEOUT}",))
    # The bound the run used: FAULT_TIMEOUT on an idle machine, stretched by the load it measured at start.
    bound = run.bound(FAULT_TIMEOUT)
    # A hung load costs its bound and a retry at three times it; a hung tool the same, then one more
    # longer bound for its second, different hung call; everything else is quick (60 s, times the load).
    assert run.seconds < 2 * 4 * bound + 2 * 7 * bound + 60 * run.factor, (run.seconds, bound)
    assert not run.failed("conforming"), run.describe()
    assert run.passed("conforming")
    loads = {o.nodeid.split("[", 1)[1].rstrip("]"): o for o in run.outcomes if "test_plugin_loads" in o.nodeid}
    # A load that never ends is errored with its phase and both bounds; a load that fails is REG-1's failure.
    hung_loads = {
        "REG-1-hang_register": f"register() (loading the plugin) did not finish within {3 * bound:g} s",
        "REG-1-hangs_in_register": f"did not finish within {3 * bound:g} s",
    }
    for test_id, phrase in hung_loads.items():
        outcome = loads[test_id]
        assert outcome.outcome == "errored" and phrase in outcome.message, (test_id, outcome)
        assert "phase: register" in outcome.message and "rerun: pytest" in outcome.message, outcome.message
        assert "During handling" not in outcome.message and outcome.message.count("did not finish") == 1
    failed_loads = {
        "REG-1-throws_on_load": "threw Error: cannot start: missing configuration",
        "REG-1-not_a_plugin0": "is not a plugin: it exports neither register(ctx)",
        "REG-1-not_a_plugin1": "is not a plugin: it defines no register(ctx)",
    }
    for test_id, phrase in failed_loads.items():
        assert loads[test_id].outcome == "failed" and phrase in loads[test_id].message, (test_id, loads[test_id])

    def outcomes_of(plugin: str, tool: str) -> list[Outcome]:
        return [o for o in run.outcomes if o.plugin == plugin and o.tool == tool]

    # A hung call: errored (never failed) in the checks that met it, with the phase, the arguments, both
    # bounds and a rerun line; after a second, different hung call the tool is called no more, and its
    # later checks are errored saying so (plugins/budget.py), not waited for.
    for plugin, tool in (("hang_call", "Spin"), ("hangs_in_call", "Sleep")):
        outcomes = outcomes_of(plugin, tool)
        errored = [o for o in outcomes if o.outcome == "errored"]
        assert errored and not [o for o in outcomes if o.outcome == "failed"], [(o.nodeid, o.outcome) for o in outcomes]
        first = errored[0].message
        assert first.startswith("[") and "phase call" in first and "when called with {}" in first, first
        assert (
            f"within {bound:g} s when called with {{}} (through the host), nor within {3 * bound:g} s when "
            "called again" in first
        ), first
        assert "rerun: pytest" in first and "During handling" not in first, first
        assert any(
            "ran out of time on two different calls" in o.message and "calls it no more" in o.message
            for o in errored[1:]
        ), [(o.nodeid, o.outcome, o.message[:120]) for o in outcomes]
    # A crash is the plugin's failure, once; the checks after it are skipped with a pointer to it.
    outcomes = outcomes_of("exits", "Exit")
    failed = [o for o in outcomes if o.outcome == "failed"]
    assert len(failed) == 1 and "exited with code 3" in failed[0].message, [
        (o.nodeid, o.message[-300:]) for o in failed
    ]
    # The healthy tools of the same plugins went on working after the restart.
    for plugin, tool in (("hang_call", "Quick"), ("hangs_in_call", "Quick"), ("exits", "Alive")):
        assert any(o.outcome == "passed" and "REG-3" in o.rules for o in outcomes_of(plugin, tool)), (plugin, tool)


SLOW_PI_SECONDS = FAULT_TIMEOUT * 1.5
SLOW_PI_EXTENSION = """// A correct pi extension that does not import pi itself: the kit's runtime does.
import { Type } from "typebox";

export default function (pi) {
  pi.registerTool({
    name: "greet",
    label: "Greet",
    description: "Greets someone by name.",
    parameters: Type.Object({ name: Type.String({ description: "Name to greet" }) }),
    async execute(_id, params) {
      if (typeof params.name !== "string") {
        return { content: [{ type: "text", text: "Error: name must be a string" }], details: {} };
      }
      return { content: [{ type: "text", text: `Hello, ${params.name}!` }], details: {} };
    },
  });
}
"""


def test_the_kits_own_set_up_is_not_the_plugins_time(
    pytester: pytest.Pytester, node_ready: str, tmp_path: Path
) -> None:
    """Pi's runtime, which the kit builds each call's context from, takes longer to
    import than a plugin step's bound (as a real pi does on a busy machine); the extension is correct
    and is judged so: the import happens in the kit's own phase, before the plugin's clock starts."""
    folder = tmp_path / "slow_pi_runtime"
    pi = folder / "node_modules" / "@earendil-works" / "pi-coding-agent"
    pi.mkdir(parents=True)
    (pi / "package.json").write_text(
        '{"name": "@earendil-works/pi-coding-agent", "version": "1.6.0", "main": "index.js"}'
    )
    (pi / "index.js").write_text(
        f"const end = Date.now() + {int(SLOW_PI_SECONDS * 1000)}; while (Date.now() < end) {{}}\nmodule.exports "
        f"= {{}};\n"
    )
    (folder / "node_modules" / "typebox").symlink_to(NODE_MODULES / "typebox")
    (folder / "index.mjs").write_text(SLOW_PI_EXTENSION)
    run = run_suites(pytester, folder / "index.mjs", extra=(f"--toolconformance-timeout={FAULT_TIMEOUT}",))
    assert run.passed(), run.describe()
    assert not run.failed() and not [o for o in run.outcomes if o.outcome == "errored"], [
        (o.nodeid, o.outcome, o.message[:300]) for o in run.outcomes if o.outcome in ("failed", "errored")
    ]


ONCE_PER_WORKSPACE = """
import fs from "node:fs";
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export function register(ctx) {
  // Loads once: once the file beside it says so, every later instance, in this process or another, refuses
  // to load (a state the kit's isolation cannot reset: the plugin's own folder, read-only to it).
  if (fs.existsSync(new URL("./loaded-once", import.meta.url))) throw new Error("already registered in this workspace");
  ctx.registerTool(defineTool({
    name: "Echo", label: "Echo", description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    execute: async (_id, params) => ({ content: [{ type: "text", text: String(params.value) }], details: {} }),
  }));
}
"""


def test_a_check_without_a_fresh_instance_is_errored(pytester: pytest.Pytester, node_ready: str,
                                                     tmp_path: Path) -> None:
    """A plugin whose second instance does not load has its first check judged; every
    later check that would call it is errored, saying why, and no rule fails for it."""
    folder = tmp_path / "once_per_workspace"
    folder.mkdir()
    (folder / "node_modules").symlink_to(NODE_MODULES)
    (folder / "index.mjs").write_text(ONCE_PER_WORKSPACE)
    # Written once the first check is done (the plugin is loaded when the run is, at collection or, where
    # another process listed its tools, at the first check): every later check needs another instance.
    pytester.makepyfile(loaded_once=(
        "from pathlib import Path\n\n"
        "def pytest_runtest_teardown(item):\n"
        f"    Path({str(folder / 'loaded-once')!r}).write_text('')\n"))
    pytester.syspathinsert()
    run = run_suites(pytester, folder / "index.mjs", extra=("-p", "loaded_once", "--toolconformance-max-examples=1"))
    assert not run.failed(), run.describe()
    errored = [o for o in run.outcomes if o.outcome == "errored"]
    assert errored and all("could not load a fresh instance of it for this check" in o.message and
                           o.message.startswith(f"[{o.rules[0]}] plugin once_per_workspace") for o in errored)
    assert "already registered in this workspace" in errored[0].message
    assert len(run.passed()) >= 1, "the first check calls the instance loaded for the run"


# One plugin per problem the kit had with real extensions, each judged right now.
VERDICTS = [
    # item 2: a hang is errored where it is met, and the tool's other checks still find the real failure.
    pytest.param(JS / "verdict_hangs_on_one_call", {"ERR-2"}, {"REG-3"}, id="hang-errored-other-checks-run"),
    # item 5: a url parameter gets a URL, so the fetch behind it runs and its flattened failure is seen.
    pytest.param(JS / "verdict_url_reaches_fetch", {"ERR-3"}, set(), id="url-reaches-the-fetch"),
    # item 3: a missing program and a missing API key are host faults, thrown as the seed says: not ERR-2's.
    pytest.param(JS / "verdict_environment_throw", set(), set(), id="environment-throw-not-err-2"),
    # item 7: an enum named scope is no path (NAME-2); optional parameters are no choice (SCHEMA-3); a
    # plain "No active goal. Use create_goal first." is a refusal (SCHEMA-4, NAME-6).
    pytest.param(JS / "verdict_readings", set(), set(), id="readings-held-to-the-seed"),
    # item 6: a quota kept in module state, spent by earlier checks, made SCHEMA-3 not applicable and gave
    # two false NAME-6 advisories; each check now calls an instance no other check has called.
    pytest.param(JS / "verdict_isolation", set(), set(), id="state-left-by-earlier-checks"),
    # The same quota kept in a store under the home folder, and a history in the folder the plugin loaded
    # in: each check starts from the same seeded home and folder.
    pytest.param(JS / "verdict_home_store", set(), set(), id="state-left-in-the-home-folder"),
    # What the kit judged wrong or missed on third-party extensions (tests/subjects/corpus/third_party.toml):
    # a state answer is no choice (SCHEMA-3), a directory beside the file target and an optional output
    # are no scope and no primary target (NAME-2, NAME-1); an optional URL still reaches the fetch (ERR-3)
    # and a throw on one wrong-typed optional parameter is found (ERR-2), each on a budget of one example;
    # an unknown-only call answered with the state `{}` gets is the default's work, no refusal (NAME-6).
    pytest.param(JS / "verdict_third_party", {"ERR-2", "ERR-3", "NAME-6"}, set(), id="third-party-shapes"),
    # item 5: a url pointed at the kit's fault origin. A fetch tool that lets a refused request throw (fetch
    # throws it) but answers an origin's 503 as text breaks ERR-3, seen only where a request gets an answer.
    pytest.param(JS / "verdict_status_flattened", {"ERR-3"}, set(), id="origin-answering-5xx"),
    pytest.param(PY / "verdict_status_flattened.py", {"ERR-3"}, set(), id="origin-answering-5xx-python"),
]


@pytest.mark.parametrize(("path", "failed", "errored"), VERDICTS)
def test_real_extension_problems_are_judged_right(
    pytester: pytest.Pytester, node_ready: str, path: Path, failed: set[str], errored: set[str]
) -> None:
    run = run_suites(pytester, path, extra=(f"--toolconformance-timeout={FAULT_TIMEOUT}",
                                             "--toolconformance-max-examples=1"))
    assert run.failed_rules() == failed, run.describe()
    got = {rule for o in run.outcomes if o.outcome == "errored" for rule in o.rules}
    assert errored <= got and (got or not errored), got
    if not errored:
        assert not got, [(o.nodeid, o.message[:300]) for o in run.outcomes if o.outcome == "errored"]
    else:
        # Never skipped as unusable: the tool hung on one call only.
        assert not [o for o in run.outcomes if "is unusable" in o.message], [o.nodeid for o in run.outcomes]
    if path.name in ("verdict_isolation", "verdict_home_store"):
        assert {r for o in run.passed() for r in o.rules} >= {"SCHEMA-3", "NAME-6", "ERR-2"}, run.outcomes
        assert not run.advisories(), run.advisories()
    if path.stem == "verdict_status_flattened":
        (finding,) = run.failed()
        assert "FetchStatus]" in finding.nodeid and "fault origin (origin.toolconformance.invalid) answered 503" in \
            finding.message, finding.message
        tagged = {r for o in run.passed() if "FetchStatusTagged]" in o.nodeid for r in o.rules}
        assert tagged >= {"ERR-3", "ERR-4"}, run.outcomes
    if path.name == "verdict_environment_throw":
        assert sum(a.startswith("[ERR-2]") and "host or configuration fault" in a for a in run.advisories()) == 2


# -- collection -----------------------------------------------------------------------------------


def test_no_plugin_collects_nothing(pytester: pytest.Pytester) -> None:
    reprec = pytester.inline_run(
        "--toolconformance", "-p", "no:cacheprovider", "--collect-only", str(PLUGIN_SUITES_DIR)
    )
    items = [i for r in reprec.getreports("pytest_collectreport") for i in r.result if isinstance(i, pytest.Item)]
    assert not items
    assert not [r for r in reprec.getreports("pytest_collectreport") if r.failed]
    # Without a plugin the host suites run as before, and nothing of the plugin suites is collected.
    reprec = pytester.inline_run("--toolconformance", "-p", "no:cacheprovider", "--collect-only")
    ids = [i.nodeid for r in reprec.getreports("pytest_collectreport") for i in r.result if isinstance(i, pytest.Item)]
    assert ids and not [i for i in ids if "suite_plugin_" in i]


def test_plugin_suites_join_the_host_suites_when_asked(pytester: pytest.Pytester) -> None:
    def collected(*extra: str) -> list[str]:
        reprec = pytester.inline_run(
            "--toolconformance",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "-q",
            f"--toolconformance-plugin={PY / 'conforming.py'}",
            *extra,
        )
        return [
            i.nodeid for r in reprec.getreports("pytest_collectreport") for i in r.result if isinstance(i, pytest.Item)
        ]

    ids = collected("--toolconformance-suites=all")
    assert any(i.endswith("suite_plugin_names.py::test_file_target_name[NAME-1-conforming-MyTool]") for i in ids)
    assert any(i.startswith("suite_scenarios.py::") for i in ids), (
        "--toolconformance-suites=all runs the host suites too"
    )
    ids = collected()
    assert ids and not any(i.startswith("suite_scenarios.py::") for i in ids), "a plugin alone runs plugin checks only"


def test_rule_selection_with_k(pytester: pytest.Pytester) -> None:
    reprec = pytester.inline_run(
        *BASE_ARGS, f"--toolconformance-plugin={PY / 'broken_name_1.py'}", "-k", "NAME-1", str(PLUGIN_SUITES_DIR)
    )
    passed, skipped, failed = reprec.listoutcomes()
    assert [r.nodeid.split("::")[-1] for r in failed] == ["test_file_target_name[NAME-1-broken_name_1-ReadNote]"]
    assert not passed


def test_plugin_path_from_ini_is_relative_to_the_ini_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = pytester.path / "myplugin"
    target.mkdir()
    (target / "plugin.py").write_text((PY / "conforming.py").read_text("utf-8"), "utf-8")
    ini = pytester.makeini("[pytest]\ntoolconformance = true\ntoolconformance_plugins = myplugin\n")
    sub = pytester.path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    reprec = pytester.inline_run(
        "-c",
        str(ini),
        "-p",
        "no:cacheprovider",
        "--toolconformance-max-examples=3",
        str(PLUGIN_SUITES_DIR),
        "-k",
        "REG-1",
    )
    passed, _skipped, failed = reprec.listoutcomes()
    assert not failed and [r.nodeid.split("::")[-1] for r in passed] == ["test_plugin_loads[REG-1-myplugin]"]
