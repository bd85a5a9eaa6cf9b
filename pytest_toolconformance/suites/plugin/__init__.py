"""The plugin suites: checks of the plugin rules against plugins loaded for real.

Collected only under ``--toolconformance`` with at least one ``--toolconformance-plugin``. Each
plugin is installed once per run into the reference host (the oracle); its tools are called with
generated arguments. Modules are named ``suite_*.py`` so that nothing but the kit's own collection
hook ever collects them.
"""

from __future__ import annotations

from pathlib import Path

from pytest_toolconformance.findings import Finding, ToolConformanceAdvisory
from pytest_toolconformance.report.plugin_summary import configure

PLUGIN_SUITES_DIR = Path(__file__).resolve().parent

__all__ = ["PLUGIN_SUITES_DIR", "Finding", "ToolConformanceAdvisory", "configure"]
