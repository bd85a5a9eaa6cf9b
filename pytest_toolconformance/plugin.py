"""The pytest entry point (``pytest11``). Hooks stay thin; the work is in plain modules.

Nothing happens unless ``--toolconformance`` (or ini ``toolconformance = true``) is given: no
collection, no host. Then the kit's suites are collected from the installed package next to the
user's own tests, against the host that ``--toolconformance-host`` names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_toolconformance import _proc
from pytest_toolconformance import options as settings_module
from pytest_toolconformance.fixtures import (  # noqa: F401 - fixtures are discovered by name on the plugin module
    fake_access,
    fake_identity,
    plan_file_sandbox,
    toolconformance_adapter,
    toolconformance_host,
    toolconformance_settings,
)
from pytest_toolconformance.host.connect import ADAPTER_KEY, configured_adapter
from pytest_toolconformance.host.wire import outcomes as wire_outcomes
from pytest_toolconformance.report.hooks import register_reporting

SUITES_DIR = Path(__file__).parent / "suites" / "host"
# Plugin suites: collected under --toolconformance only when a plugin is given.
PLUGIN_SUITES_DIR = Path(__file__).parent / "suites" / "plugin"
MARKER = "toolconformance"


def pytest_addoption(parser: pytest.Parser) -> None:
    settings_module.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(*rules): a conformance check of the given rule IDs (added by pytest-toolconformance)"
    )
    # Protocol faults are reported as errored, with or without --toolconformance (fixtures work without it).
    if not config.pluginmanager.is_registered(wire_outcomes):
        config.pluginmanager.register(wire_outcomes, "toolconformance-wire-outcomes")
    settings = settings_module.read_settings(config)
    settings_module.install(settings)
    _proc.set_pass_env(settings.pass_env)
    if not settings.enabled:
        return  # the fixtures still get a host: configured_adapter builds it when one is first asked for
    adapter = configured_adapter(config, settings.host, timeout=settings.timeout, search_paths=[Path.cwd()])
    register_reporting(config, settings, adapter)
    args = [Path(a.split("::")[0]).resolve() for a in config.args]
    if settings.plugins:
        from pytest_toolconformance.suites.plugin import configure as configure_plugin_suites

        configure_plugin_suites(config, settings)
    # Naming one of the kit's suite folders (or a module in it) runs just that; otherwise all of them.
    if not any(d == a or a in d.parents or d in a.parents for a in args for d in (SUITES_DIR, PLUGIN_SUITES_DIR)):
        config.args.extend(str(d) for d in [SUITES_DIR] + ([PLUGIN_SUITES_DIR] if settings.plugins else []))


def pytest_unconfigure(config: pytest.Config) -> None:
    settings_module.uninstall()
    _proc.set_pass_env(settings_module.current().pass_env)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = settings_module.current()
    if not settings.enabled:
        return None
    lines = settings.header_lines()
    if settings.plugins:
        lines += _proc.confinement_header()
    adapter = config.stash.get(ADAPTER_KEY, None)
    if adapter is not None:
        try:
            info = adapter.info()
            lines.insert(1, f"toolconformance: host under test: {info.get('name')} {info.get('version')} "
                            f"({len(info.get('capabilities') or [])} capabilities)")
        except Exception as exc:  # noqa: BLE001 - a broken host still gets a header line, not a traceback
            lines.insert(1, f"toolconformance: host under test did not describe itself: {exc}")
    return lines


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # Without the flag our suites are never collected, even when a run points at site-packages;
    # the plugin suites also need a plugin to check.
    settings = settings_module.current()
    if not settings.enabled and (_within(collection_path, SUITES_DIR) or _within(collection_path, PLUGIN_SUITES_DIR)):
        return True
    if not settings.plugins and _within(collection_path, PLUGIN_SUITES_DIR):
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    # Suite modules are named suite_*.py so that nothing but this hook ever collects them.
    if file_path.parent in (SUITES_DIR, PLUGIN_SUITES_DIR) and file_path.name.startswith("suite_") and file_path.suffix == ".py":
        settings = settings_module.current()
        if settings.enabled and (file_path.parent == SUITES_DIR or settings.plugins):
            return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        rules = [rule for mark in item.iter_markers(MARKER) for rule in mark.args]
        if rules:
            # `-k CAP-1` selects a rule's tests; junitxml carries the rules as properties.
            for rule in dict.fromkeys(rules):
                item.extra_keyword_matches.add(rule)
                item.user_properties.append(("rule", rule))
