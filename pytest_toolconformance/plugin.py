"""The pytest entry point (``pytest11``). Hooks stay thin; the work is in plain modules.

Nothing happens unless ``--toolconformance`` (or ini ``toolconformance = true``) is given: no
collection, no host. Then the kit's suites are collected from the installed package next to the
user's own tests, against the host that ``--toolconformance-host`` names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import settings as settings_module
from .fixtures import (  # noqa: F401 - fixtures are discovered by name on the plugin module
    fake_access,
    fake_identity,
    plan_file_sandbox,
    toolconformance_adapter,
    toolconformance_host,
    toolconformance_settings,
)
from .hostspec import HostSpecError, load_host

SUITES_DIR = Path(__file__).parent / "suites"
MARKER = "toolconformance"
ADAPTER_KEY = pytest.StashKey[object]()


def pytest_addoption(parser: pytest.Parser) -> None:
    settings_module.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(*rules): a conformance check of the given rule IDs (added by pytest-toolconformance)"
    )
    settings = settings_module.read_settings(config)
    settings_module.install(settings)
    if not settings.enabled:
        return
    try:
        adapter = load_host(settings.host, search_paths=[config.rootpath, Path.cwd()], timeout=settings.timeout)
    except HostSpecError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[ADAPTER_KEY] = adapter
    config.add_cleanup(adapter.close)
    args = [Path(a.split("::")[0]).resolve() for a in config.args]
    if not any(SUITES_DIR == a or a in SUITES_DIR.parents for a in args):
        config.args.append(str(SUITES_DIR))


def pytest_unconfigure(config: pytest.Config) -> None:
    settings_module.uninstall()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = settings_module.current()
    if not settings.enabled:
        return None
    lines = settings.header_lines()
    adapter = config.stash.get(ADAPTER_KEY, None)
    if adapter is not None:
        try:
            info = adapter.info()
            lines.insert(1, f"toolconformance: host under test: {info.get('name')} {info.get('version')} "
                            f"({len(info.get('capabilities') or [])} capabilities)")
        except Exception as exc:  # noqa: BLE001 - a broken host still gets a header line, not a traceback
            lines.insert(1, f"toolconformance: host under test did not describe itself: {exc}")
    return lines


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # Without the flag our suites are never collected, even when a run points at site-packages.
    if not settings_module.current().enabled and (collection_path == SUITES_DIR or SUITES_DIR in collection_path.parents):
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    # Suite modules are named suite_*.py so that nothing but this hook ever collects them.
    if file_path.parent == SUITES_DIR and file_path.name.startswith("suite_") and file_path.suffix == ".py":
        if settings_module.current().enabled:
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
