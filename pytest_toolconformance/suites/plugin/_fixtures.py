"""The plugin suites' fixtures, registered as a pytest plugin when a plugin is under test."""

from __future__ import annotations

import pytest

from pytest_toolconformance.plugins.runtime import Case, PluginRun, Subject, plugin_run


@pytest.fixture(scope="session")
def toolconformance_plugins(request: pytest.FixtureRequest) -> PluginRun:
    """Every plugin under test, installed once per run into its own reference host.

    A plugin that could not be loaded or installed keeps its error (``plugin.error``), which
    ``test_plugin_loads`` reports as one failure; the others are checked as usual.
    """
    return plugin_run(request.config)


@pytest.fixture
def toolconformance_subject(request: pytest.FixtureRequest, case: Case, toolconformance_plugins: PluginRun) -> Subject:
    """The plugin (and tool) one parametrized check is about, with its calls and findings."""
    return Subject(request, case, toolconformance_plugins)
