"""The pytest entry point (``pytest11``). Hooks stay thin; the work is in plain modules.

Nothing happens unless ``--toolconformance`` (or ini ``toolconformance = true``) or a plugin to
check (``--toolconformance-plugin``) is given: no collection, no host. Then the kit's suites in
scope (``--toolconformance-suites``: the host suites without a plugin, the plugin suites with one)
are collected from the installed package next to the user's own tests.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import _proc, bounds, heap, options, profile, ruleset
from pytest_toolconformance.findings import rule_bound
from pytest_toolconformance.fixtures import (  # noqa: F401 - fixtures are discovered by name on the plugin module
    _toolconformance_folders,
    fake_access,
    fake_identity,
    plan_file_sandbox,
    toolconformance_adapter,
    toolconformance_folder,
    toolconformance_host,
    toolconformance_settings,
)
from pytest_toolconformance.host.connect import ADAPTER_KEY, check_handshake, configured_adapter
from pytest_toolconformance.host.wire import outcomes as wire_outcomes
from pytest_toolconformance.plugins import budget
from pytest_toolconformance.plugins.loaders.openclaw import openclaw_header
from pytest_toolconformance.report.hooks import register_reporting
from pytest_toolconformance.rules import MARKER
from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR

SUITES_DIR = Path(__file__).parent / "suites" / "host"
HINT = ("hint: the conformance checks run only when asked: --toolconformance checks a host, "
        "--toolconformance-plugin=PATH checks a plugin")


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(*rules): a conformance check of the given rule IDs (added by pytest-toolconformance)"
    )
    # Protocol faults are reported as errored, with or without --toolconformance (fixtures work without it).
    if not config.pluginmanager.is_registered(wire_outcomes):
        config.pluginmanager.register(wire_outcomes, "toolconformance-wire-outcomes")
    settings = options.store(config, options.read_settings(config))
    _proc.set_pass_env(settings.pass_env)
    config.add_cleanup(lambda: _proc.set_pass_env(()))
    if not settings.enabled:
        return  # the fixtures still get a host: configured_adapter builds it when one is first asked for
    settings = options.store(config, options.check_plugin_paths(config, settings))
    ruleset.configure(config, settings.ruleset)
    # One calibration for the run: a busy machine stretches a host's request bound as it does a plugin's.
    calibration = bounds.configure(config)
    adapter = None
    if settings.host_suites:  # a plugin-only run checks no host: none is started
        adapter = configured_adapter(config, settings.host, timeout=calibration.bound(settings.timeout),
                                     startup_timeout=calibration.bound(settings.startup_timeout),
                                     search_paths=[Path.cwd()])
        if not hasattr(config, "workerinput"):  # the controller says it once; workers never meet a host that failed
            check_handshake(adapter)
    register_reporting(config, settings, adapter)
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        # Paths from the project's ini `testpaths` are its own tests, not named on this command line:
        # `pytest --toolconformance` from a repository root runs the suites alone (hosts/pi/README.md).
        config.args[:] = []
    # Host checks draw examples too: no run writes .hypothesis/ into the folder it runs in.
    profile.keep_storage_out_of_the_folder(config)
    profile.without_local_constants(config)
    profile.keep_draws_to_the_run(config)
    if settings.plugin_suites:
        from pytest_toolconformance.suites.plugin import configure as configure_plugin_suites

        unconfined = _proc.unconfined_in_ci(settings.allow_unconfined)
        if unconfined is not None:
            raise pytest.UsageError(f"toolconformance: {unconfined}")

        configure_plugin_suites(config, settings)
    in_scope = [d for d, on in ((SUITES_DIR, settings.host_suites), (PLUGIN_SUITES_DIR, settings.plugin_suites)) if on]
    # Naming one of the kit's suite folders (or a module in it) runs just that; otherwise every one in scope.
    args = [Path(a.split("::")[0]).resolve() for a in config.args]
    if not any(d == a or a in d.parents or d in a.parents for a in args for d in (SUITES_DIR, PLUGIN_SUITES_DIR)):
        config.args.extend(str(d) for d in in_scope)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    # pytest-xdist: every worker checks with the controller's seed, so a random seed is one seed per run.
    node.workerinput[options.WORKER_SEED] = options.of(node.config).seed
    if bounds.CALIBRATION_KEY in node.config.stash:
        node.workerinput[bounds.WORKER_FACTOR] = bounds.of(node.config).factor


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    # Properties read the seed and examples of the run they belong to (pytester nests runs); a host
    # check's findings name the rule of the test's marker, bound here once.
    rules = [rule for mark in item.iter_markers(MARKER) for rule in mark.args]
    with options.activated(options.of(item.config)), rule_bound(rules):
        if not item.config.getoption("hypothesis_show_statistics", False):
            return (yield)
        with profile.statistics_of(item):
            return (yield)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = options.of(config)
    if not settings.enabled:
        return None
    lines = settings.header_lines()
    lines.insert(1, f"toolconformance: {settings.seed_sentence()}")
    if settings.host_suites:
        lines.append(f"toolconformance: {bounds.of(config).sentence(settings.timeout, 'host request')}")
    if settings.plugin_suites:
        lines.append(f"toolconformance: {bounds.of(config).sentence(settings.timeout)}")
        lines.append(f"toolconformance: {budget.header_line(settings.plugin_budget, bounds.of(config).factor)}")
        lines += _proc.confinement_header()
        lines += openclaw_header([(spec, options.resolve_path(config, "toolconformance_plugin", spec))
                                  for spec in settings.plugins])
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
    # Suites out of scope are never collected, even when a run points at site-packages.
    settings = options.of(config)
    if _within(collection_path, SUITES_DIR) and not settings.host_suites:
        return True
    if _within(collection_path, PLUGIN_SUITES_DIR) and not settings.plugin_suites:
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    # Suite modules are named suite_*.py so that nothing but this hook ever collects them.
    suite = file_path.name.startswith("suite_") and file_path.suffix == ".py"
    if file_path.parent in (SUITES_DIR, PLUGIN_SUITES_DIR) and suite:
        if parent.session.isinitpath(file_path):
            return None  # named on the command line (a rerun line): pytest's own collector takes it, once
        settings = options.of(parent.config)
        if settings.host_suites if file_path.parent == SUITES_DIR else settings.plugin_suites:
            return pytest.Module.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    if options.of(session.config).enabled:
        heap.freeze_what_collection_left(session.config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        rules = [rule for mark in item.iter_markers(MARKER) for rule in mark.args]
        if rules:
            # `-k CAP-1` selects a rule's tests; junitxml carries the rules as properties.
            for rule in dict.fromkeys(rules):
                item.extra_keyword_matches.add(rule)
                item.user_properties.append(("rule", rule))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not options.of(config).enabled and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        terminalreporter.write_line(HINT, yellow=True)
