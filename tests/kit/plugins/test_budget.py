"""A plugin run always ends with a verdict: a tool too slow to judge is called no more, and the run's
budget (--toolconformance-plugin-budget) errors the checks left when it is spent (plugins/budget.py)."""

from __future__ import annotations

import json

import pytest

from pytest_toolconformance.plugins.budget import SLOW_TOOL_BOUNDS, RunBudget, ToolTime
from tests.kit.suites.test_plugin_suites import JS, run_suites

SLOW = JS / "slow_every_call"
#: Two idle step bounds for a tool whose every call takes 20 s, each giving the same verdicts idle and
#: loaded: with 0.5 s every call runs out of time at any load the kit calibrates for (the bound is
#: stretched at most 8 times and retried with 3 times that: 12 s); with 8 s every call is answered (in
#: the retry's 24 s idle, within the stretched bound loaded) and takes longer than the idle bound.
SLOW_TIMEOUTS = [pytest.param(0.5, "ran out of time on two different calls", id="out-of-time"),
                 pytest.param(8.0, "took longer than the step bound of an idle machine (8 s", id="answered-late")]


def test_calls_past_the_bound_make_a_tool_slow_once_they_cost_enough() -> None:
    times = ToolTime()
    bound = 2.0
    times.add(1.9, bound, "Search", "web", {"query": "a"})  # within the bound: not counted
    times.add(30.0, bound, "Search", "web", {"query": "x"}, hung=True)  # out of time: that call's, not counted
    assert (times.late, times.slow) == (0.0, None)
    late_calls = int(SLOW_TOOL_BOUNDS * bound // 5.0)
    for _ in range(late_calls - 1):
        times.add(5.0, bound, "Search", "web", {"query": "a"})
    assert times.slow is None, "answers past the bound cost the tool time, not yet its judgement"
    times.add(5.0, bound, "Search", "web", {"query": "b"})
    assert times.slow is not None and f"{late_calls} of its calls took longer than the step bound of an idle " \
        "machine (2 s, --toolconformance-timeout)" in times.slow
    assert 'called with {"query": "b"}' in times.slow
    assert times.errored("REG-3").startswith("[REG-3] tool Search of plugin web is too slow to judge here")


def test_a_second_different_call_out_of_time_makes_a_tool_slow_at_once() -> None:
    times = ToolTime()
    times.add(8.0, 2.0, "Search", "web", {"query": "a"}, hung=True)
    assert times.slow is None, "one call out of time is that call's: the tool's other calls are still made"
    times.add(6.0, 2.0, "Search", "web", {"query": "b"}, hung=True, hung_twice=True)
    assert times.slow is not None and "ran out of time on two different calls" in times.slow


def test_the_budget_is_spent_after_its_seconds() -> None:
    now = [100.0]
    budget = RunBudget(30, clock=lambda: now[0])
    now[0] += 29.9
    assert not budget.spent()
    now[0] += 0.1
    assert budget.spent()
    assert "budget of 30 s (--toolconformance-plugin-budget) was spent before this check started" in \
        budget.unjudged("ERR-2", "this check started")


def test_the_budget_is_stretched_by_the_machines_load_as_the_step_bound_is() -> None:
    """A run on a loaded machine gets the same verdict, not one cut short where an idle one finishes."""
    now = [0.0]
    budget = RunBudget(30, 2.5, clock=lambda: now[0])
    now[0] += 74.9
    assert not budget.spent()
    now[0] += 0.1
    assert budget.spent()
    assert ("budget of 30 s (--toolconformance-plugin-budget; 75 s at this machine's load, x2.5) was spent before "
            "this check started") in budget.unjudged("ERR-2", "this check started")


@pytest.mark.parametrize(("timeout", "why"), SLOW_TIMEOUTS)
def test_a_tool_slow_on_every_call_is_errored_and_the_others_judged(pytester: pytest.Pytester, node_ready: str,
                                                                    timeout: float, why: str) -> None:
    """A tool that takes 20 s on every call, beside one that answers at once: the run ends in minutes
    (without the kit's slow-tool rule it waited on every case of every check), the slow tool's checks
    that call it are errored with what happened, never failed, and the other tool is judged."""
    run = run_suites(pytester, SLOW, extra=(f"--toolconformance-timeout={timeout}",))
    # Out of time: two calls (the first with its retry). Answered late: the calls that make 10 idle bounds.
    assert run.seconds < 120 + 4 * 20 * run.bound(0.5) + 6 * 20 * (timeout > 1), run.seconds
    assert not run.failed(), run.describe()
    slow = [o for o in run.outcomes if o.tool == "SearchWeb"]
    errored = [o for o in slow if o.outcome == "errored"]
    assert {r for o in errored for r in o.rules} >= {"REG-3", "ERR-2", "SCHEMA-4", "NAME-6", "NAME-5"}, \
        [(o.nodeid, o.outcome) for o in slow]
    assert all("tool SearchWeb of plugin slow_every_call" in o.message for o in errored), errored[0].message
    assert sum(why in o.message and "calls it no more" in o.message for o in errored) >= len(errored) - 1, \
        [o.message[:300] for o in errored]
    assert not [o for o in slow if o.outcome == "skipped" and "unusable" in o.message]
    # Its checks that call nothing (names, schema, registration) are judged.
    assert {r for o in slow if o.outcome == "passed" for r in o.rules} >= {"NAME-1", "SCHEMA-1", "SCHEMA-2"}
    echo = [o for o in run.outcomes if o.tool == "Echo"]
    assert not [o for o in echo if o.outcome == "errored"], [(o.nodeid, o.message[:300]) for o in echo]
    assert {r for o in echo if o.outcome == "passed" for r in o.rules} >= {"REG-3", "ERR-2", "SCHEMA-4", "NAME-6"}


def test_the_header_shows_the_budget_from_the_option_or_its_ini_mirror(pytester: pytest.Pytester,
                                                                       node_ready: str) -> None:
    args = ("-p", "no:cacheprovider", "--collect-only", f"--toolconformance-plugin={JS / 'conforming'}")
    assert "toolconformance: plugin run budget 600 s (--toolconformance-plugin-budget" in \
        pytester.runpytest_inprocess("--toolconformance", *args).stdout.str()
    pytester.makeini("[pytest]\ntoolconformance_plugin_budget = 42\n")
    out = pytester.runpytest_inprocess("--toolconformance", *args)
    assert "toolconformance: plugin run budget 42 s (--toolconformance-plugin-budget" in out.stdout.str()
    out = pytester.runpytest_inprocess("--toolconformance-plugin-budget=0", *args)
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert "--toolconformance-plugin-budget='0' is out of range: it must be at least 1" in out.stderr.str()


def test_checks_after_the_budget_are_errored_and_the_run_does_not_pass(pytester: pytest.Pytester,
                                                                        node_ready: str) -> None:
    """A check that starts after the run's budget is spent is not judged: errored saying so, and the
    report says the run did not finish judging (it never passes)."""
    # The time from the run's start (its first ask for its plugins: collection, or the first check where an
    # earlier run in this process listed the tools already) to the first check outlasts a budget of one
    # second, whatever the machine's load: the budget is stretched by the load as the step bound is, so the
    # wait is too, by the run's own factor. A plugin module (-p), not a conftest: the suites' folder lies
    # outside the pytester's, where no conftest of the pytester's is read. The run is taken from the kit's
    # registered plugin module: an in-process run after another may import the kit's modules anew.
    pytester.makepyfile(outlast_budget=(
        "import time\nfrom pytest_toolconformance import bounds\n\n"
        "def pytest_collection_finish(session):\n"
        "    session.config.pluginmanager.get_plugin('toolconformance-plugin-suites-fixtures')"
        ".plugin_run(session.config)\n"
        "    time.sleep(1.5 * bounds.of(session.config).factor)\n"))
    pytester.syspathinsert()
    report = pytester.path / "report.json"
    run = run_suites(pytester, JS / "conforming", extra=("-p", "outlast_budget", "--toolconformance-plugin-budget=1",
                                                         f"--toolconformance-report={report}"))
    checks = [o for o in run.outcomes if "nothing-to-check" not in o.nodeid]  # a rule no tool is for: skipped
    assert checks and all(o.outcome == "errored" for o in checks), \
        [(o.nodeid, o.outcome, o.message[:200]) for o in checks if o.outcome != "errored"]
    assert all("the plugin run's budget of 1 s (--toolconformance-plugin-budget" in o.message
               and "was spent before this check started" in o.message for o in checks), checks[0].message
    written = json.loads(report.read_text())
    assert not written["ok"]
    assert any("was spent: " in why and "so the run did not finish judging" in why for why in written["why"]), \
        written["why"]
