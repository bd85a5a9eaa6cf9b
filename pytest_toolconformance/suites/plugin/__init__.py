"""The plugin suites: the plugin rules checked against plugins loaded for real and installed once per run
into the reference host; collected only under ``--toolconformance`` with a ``--toolconformance-plugin``,
and only by the kit's own collection hook (modules ``suite_*.py``; fixtures and hooks in _fixtures.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_toolconformance.findings import Finding, ToolConformanceAdvisory

PLUGIN_SUITES_DIR = Path(__file__).resolve().parent

__all__ = ["PLUGIN_SUITES_DIR", "Finding", "ToolConformanceAdvisory"]
