"""The plugin suites' pytest plugin, registered when a plugin is under test: their fixtures, and
the pytest-xdist hooks that load each plugin once per run (:mod:`pytest_toolconformance.plugins.workers`)."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import pytest

from pytest_toolconformance.findings import StepOutOfTime
from pytest_toolconformance.plugins import workers
from pytest_toolconformance.plugins.parametrize import TARGET_ARG, CheckTarget
from pytest_toolconformance.plugins.subject import Subject, subject_of
from pytest_toolconformance.plugins.under_test import PluginRun, plugin_run
from pytest_toolconformance.profile import note_statistic


@pytest.fixture(scope="session")
def toolconformance_plugins(request: pytest.FixtureRequest) -> PluginRun:
    """Every plugin under test, installed once per run into its own reference host.

    A plugin that could not be loaded or installed keeps its error (``plugin.error``), which
    ``test_plugin_loads`` reports as one failure; the others are checked as usual.
    """
    return plugin_run(request.config)


@pytest.fixture
def toolconformance_subject(
    request: pytest.FixtureRequest, toolconformance_target: CheckTarget, toolconformance_plugins: PluginRun
) -> Iterator[Subject]:
    """The plugin (and tool) one parametrized check is about, with its calls and findings."""
    subject = subject_of(request, toolconformance_target, toolconformance_plugins)
    yield subject
    made, recalled = subject.calls_made, subject.calls_recalled
    if made or recalled:
        note_statistic(
            f"{made + recalled} call{'s' * (made + recalled != 1)} of the plugin: {made} made, "
            f"{recalled} answered with the record of the same call made earlier in this check"
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    """A plugin check that starts after the run's budget is spent is errored, not judged (plugins/budget.py)."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None and TARGET_ARG in callspec.params:
        budget = plugin_run(item.config).budget
        if budget.spent():
            budget.mark_unjudged(item)
            rules = [str(value) for key, value in item.user_properties if key == "rule"]
            raise StepOutOfTime(budget.unjudged(rules[0] if rules else "?", "this check started"))
    return (yield)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    workers.configure_node(node)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return workers.make_scheduler(config, log)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers.write_groups(config, items, TARGET_ARG, CheckTarget)
