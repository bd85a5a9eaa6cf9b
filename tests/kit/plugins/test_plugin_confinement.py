"""What a run says about confinement: per plugin in the summary and the report, and in CI an
unconfined run is an error unless it is allowed."""

from __future__ import annotations

import json

import pytest

from pytest_toolconformance import confinement
from tests.paths import PLUGINS

PLUGIN = PLUGINS / "python" / "conforming.py"


@pytest.fixture
def ci_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A CI job's environment, without the own suite's allowance (tests/conftest.py)."""
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    return pytester


def test_in_ci_a_plugin_that_cannot_be_confined_is_an_error(
    ci_run: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    result = ci_run.runpytest_subprocess(f"--toolconformance-plugin={PLUGIN}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    said = result.stderr.str()
    assert "cannot be confined here (TOOLCONFORMANCE_NO_NAMESPACES is set)" in said, said
    assert "--toolconformance-allow-unconfined" in said and "Traceback" not in said
    assert "passed" not in result.stdout.str()  # nothing ran


def test_allowed_the_run_goes_on_and_says_it_ran_unconfined(
    ci_run: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    report = ci_run.path / "report.json"
    result = ci_run.runpytest_subprocess(
        f"--toolconformance-plugin={PLUGIN}",
        "--toolconformance-allow-unconfined",
        f"--toolconformance-report={report}",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "conforming (*conforming.py): python plugin, 1 tool(s) installed; sandbox: no namespaces (scrubbed "
            "environment only)",
            "toolconformance: 1 plugin(s) ran unconfined here (conforming): *",
        ]
    )
    plugins = json.loads(report.read_text())["run"]["sandbox"]["plugins"]
    assert plugins == {str(PLUGIN): plugins[str(PLUGIN)]}
    assert plugins[str(PLUGIN)].startswith("its own process without namespaces (TOOLCONFORMANCE_NO_NAMESPACES is set)")


def test_confined_plugins_run_in_ci_and_the_report_says_how(ci_run: pytest.Pytester, node_ready: str) -> None:
    if not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason})")
    report = ci_run.path / "report.json"
    js = PLUGINS / "js" / "conforming"
    result = ci_run.runpytest_subprocess(
        f"--toolconformance-plugin={PLUGIN}",
        f"--toolconformance-plugin={js}",
        f"--toolconformance-report={report}",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["conforming (*conforming.py): python plugin, 1 tool(s) installed; sandbox: namespaces"]
    )
    assert "ran unconfined" not in result.stdout.str()
    plugins = json.loads(report.read_text())["run"]["sandbox"]["plugins"]
    assert sorted(plugins) == sorted([str(PLUGIN), str(js)])
    assert all(text.startswith("its own process in namespaces") for text in plugins.values()), plugins


def test_outside_ci_an_unconfined_run_is_said_not_refused(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    result = pytester.runpytest_subprocess(f"--toolconformance-plugin={PLUGIN}", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*no namespaces because TOOLCONFORMANCE_NO_NAMESPACES is set*",
            "toolconformance: 1 plugin(s) ran unconfined here (conforming): *",
        ]
    )


@pytest.mark.parametrize("value", ["", "0", "false", "no"])
def test_ci_set_to_nothing_is_not_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert not confinement.in_ci()
    assert confinement.unconfined_in_ci(allowed=False) is None


def test_the_gate_needs_ci_and_no_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    monkeypatch.setenv("CI", "1")
    assert confinement.unconfined_in_ci(allowed=True) is None
    assert "cannot be confined here" in (confinement.unconfined_in_ci(allowed=False) or "")


MONOREPO_EXTENSION = """import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { answer } from "../../lib/answer.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Echo", label: "Echo", description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    execute: async (_id, params) => {
      const extra = Object.keys(params).find((key) => key !== "value");
      if (extra) return answer(`unknown parameter ${extra}; expected value`);
      if (typeof params.value !== "string") return answer("value must be a string");
      return answer(params.value);
    },
  }));
}
"""


def test_a_monorepo_extension_importing_shared_code_is_judged(
    pytester: pytest.Pytester, node_ready: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A two-package monorepo whose extension imports ../../lib/ (outside its package, inside its
    repository) loads and is judged, as pi loads it: the sandbox shows the plugin its repository."""
    from tests.kit.suites.test_plugin_suites import run_suites
    from tests.paths import NODE_MODULES

    root = tmp_path_factory.mktemp("monorepo")
    (root / ".git").mkdir()
    (root / "node_modules").symlink_to(NODE_MODULES)
    (root / "lib").mkdir()
    (root / "lib" / "answer.mjs").write_text(
        'export const answer = (text) => ({ content: [{ type: "text", text }], details: {} });\n'
    )
    for name in ("ext", "other"):
        (root / "packages" / name).mkdir(parents=True)
        (root / "packages" / name / "package.json").write_text(f'{{"name": "{name}", "type": "module"}}')
    (root / "packages" / "other" / "index.mjs").write_text("export const other = 1;\n")
    (root / "packages" / "ext" / "index.mjs").write_text(MONOREPO_EXTENSION)
    run = run_suites(pytester, root / "packages" / "ext" / "index.mjs", extra=("--toolconformance-max-examples=3",))
    assert not run.failed() and not [o for o in run.outcomes if o.outcome == "errored"], run.describe()
    assert {r for o in run.passed() for r in o.rules} >= {"REG-1", "REG-3", "SCHEMA-4", "ERR-2"}
