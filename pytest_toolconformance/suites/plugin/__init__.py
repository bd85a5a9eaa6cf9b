"""The plugin suites: the plugin rules checked against plugins loaded for real and installed once per run
into the reference host; collected only under ``--toolconformance`` with a ``--toolconformance-plugin``,
and only by the kit's own collection hook (modules ``suite_*.py``; fixtures and hooks in _fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_toolconformance.findings import Finding, ToolConformanceAdvisory
from pytest_toolconformance.options import Settings
from pytest_toolconformance.report import plugin_summary

PLUGIN_SUITES_DIR = Path(__file__).resolve().parent


def configure(config: pytest.Config, settings: Settings) -> None:
    """Called from plugin.py when plugin suites will run: their fixtures, and their terminal summary."""
    from pytest_toolconformance.suites.plugin import _fixtures

    if not config.pluginmanager.is_registered(_fixtures):
        config.pluginmanager.register(_fixtures, f"{plugin_summary.PLUGIN_NAME}-fixtures")
    plugin_summary.configure(config, settings)

__all__ = ["PLUGIN_SUITES_DIR", "Finding", "ToolConformanceAdvisory", "configure"]
