"""The pytest entry point (``pytest11``), and the wiring of a run. Hooks stay thin; the work is in plain modules.

Nothing happens unless ``--toolconformance`` (or ini ``toolconformance = true``) or a plugin to
check (``--toolconformance-plugin``) is given: no collection, no host. Then the kit's suites in
scope (``--toolconformance-suites``: the host suites without a plugin, the plugin suites with one)
are collected from the installed package next to the user's own tests.

This module alone registers the kit's pytest plugins, from one list (:func:`kit_plugins`, as pytest's
``default_plugins``), and alone asks the seam sides (the host, the plugins' loaders, the sandbox) for
what the report says of a run, handing it over in ``pytest_configure`` (:class:`~.report.hooks.RunFacts`).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import bounds, confinement, heap, options, profile, ruleset
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
from pytest_toolconformance.plugins import budget
from pytest_toolconformance.plugins.loaders.openclaw import openclaw_header
from pytest_toolconformance.report import hooks as reporting
from pytest_toolconformance.report import outcomes, plugin_summary
from pytest_toolconformance.rules import MARKER
from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR

SUITES_DIR = Path(__file__).parent / "suites" / "host"
HINT = (
    "hint: the conformance checks run only when asked: --toolconformance checks a host, "
    "--toolconformance-plugin=PATH checks a plugin"
)
OUTCOMES_PLUGIN = "toolconformance-outcomes"
RULESET_PLUGIN = "toolconformance-ruleset"


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(*rules): a conformance check of the given rule IDs (added by pytest-toolconformance)"
    )
    settings = options.store(config, options.read_settings(config))
    confinement.set_pass_env(settings.pass_env)
    config.add_cleanup(lambda: confinement.set_pass_env(()))
    if not settings.enabled:
        # The fixtures still get a host (configured_adapter builds it when one is first asked for), and a
        # host's protocol fault is still errored: the outcomes plugin alone.
        _register(config, kit_plugins(config, settings))
        return
    settings = options.store(config, expand_plugin_specs(config, settings))
    pinned = ruleset.load(settings.ruleset)
    # One calibration for the run: a busy machine stretches a host's request bound as it does a plugin's.
    calibration = bounds.configure(config)
    adapter = None
    if settings.host_suites:  # a plugin-only run checks no host: none is started
        adapter = configured_adapter(
            config,
            settings.host,
            timeout=calibration.bound(settings.timeout),
            startup_timeout=calibration.bound(settings.startup_timeout),
            search_paths=[Path.cwd()],
        )
        if not hasattr(config, "workerinput"):  # the controller says it once; workers never meet a host that failed
            check_handshake(adapter)
    deviations = outcomes.run_deviations(config, settings)
    outcomes.configure(config, outcomes.Judging(settings, pinned, deviations.deviations if deviations else None))
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        # Paths from the project's ini `testpaths` are its own tests, not named on this command line:
        # `pytest --toolconformance` from a repository root runs the suites alone (hosts/pi/README.md).
        config.args[:] = []
    # Host checks draw examples too: no run writes .hypothesis/ into the folder it runs in.
    profile.keep_storage_out_of_the_folder(config)
    profile.without_local_constants(config)
    profile.keep_draws_to_the_run(config)
    if settings.plugin_suites:
        unconfined = confinement.unconfined_in_ci(settings.allow_unconfined)
        if unconfined is not None:
            raise pytest.UsageError(f"toolconformance: {unconfined}")
    facts = run_facts(config, settings, adapter)
    _register(config, kit_plugins(config, settings, pinned=pinned, deviations=deviations, facts=facts))
    in_scope = [d for d, on in ((SUITES_DIR, settings.host_suites), (PLUGIN_SUITES_DIR, settings.plugin_suites)) if on]
    # Naming one of the kit's suite folders (or a module in it) runs just that; otherwise every one in scope.
    args = [Path(a.split("::")[0]).resolve() for a in config.args]
    if not any(d == a or a in d.parents or d in a.parents for a in args for d in (SUITES_DIR, PLUGIN_SUITES_DIR)):
        config.args.extend(str(d) for d in in_scope)


def kit_plugins(
    config: pytest.Config,
    settings: options.Settings,
    *,
    pinned: ruleset.RuleSet | None = None,
    deviations: outcomes.RunDeviations | None = None,
    facts: reporting.RunFacts | None = None,
) -> list[tuple[str, object]]:
    """Every pytest plugin of the kit a run registers, by name, in the order they are registered.

    The outcomes module in every run (a host's protocol fault is errored wherever the fixtures talk to
    one); with the kit on, the rule set's header and summary and the report; with plugins under test,
    the plugin suites' fixtures and hooks, their terminal summary and the advisories told once. (pytest
    calls the plugin registered last first: the report's summary prints before the rule set's line.)
    """
    plugins: list[tuple[str, object]] = [(OUTCOMES_PLUGIN, outcomes)]
    if not settings.enabled:
        return plugins
    plugins += [
        (RULESET_PLUGIN, ruleset.RuleSetPlugin(pinned, settings.ruleset)),
        (reporting.PLUGIN_NAME, reporting.ReportingPlugin(config, settings, deviations, facts or reporting.RunFacts())),
    ]
    if settings.plugin_suites:
        from pytest_toolconformance.suites.plugin import _fixtures

        plugins += [
            (f"{plugin_summary.PLUGIN_NAME}-fixtures", _fixtures),
            (
                plugin_summary.PLUGIN_NAME,
                plugin_summary.PluginSuitesSummary(config, settings, lambda: _loaded_plugins(config)),
            ),
            (f"{plugin_summary.PLUGIN_NAME}-advisories", plugin_summary.AdvisoriesToldOnce()),
        ]
    return plugins


def _register(config: pytest.Config, plugins: Sequence[tuple[str, object]]) -> None:
    for name, plugin in plugins:
        # pytester runs a nested pytest in this process: a module plugin is registered once per config.
        if not config.pluginmanager.has_plugin(name) and not config.pluginmanager.is_registered(plugin):
            config.pluginmanager.register(plugin, name)


def _loaded_plugins(config: pytest.Config) -> Sequence[Any]:
    """The plugins this process loaded so far, for the plugin suites' summary (none where none ran)."""
    from pytest_toolconformance.plugins.under_test import RUN_KEY

    run = config.stash.get(RUN_KEY, None)
    return run.loaded if run is not None else []


def run_facts(config: pytest.Config, settings: options.Settings, adapter: Any) -> reporting.RunFacts:
    """What the report says of the run besides its outcomes, asked of the host and the plugins' loaders
    once, by the process that writes the report (an xdist worker writes none)."""
    if hasattr(config, "workerinput"):
        return reporting.RunFacts()
    if not settings.plugin_suites:
        return reporting.RunFacts(host=host_facts(settings, adapter))
    from pytest_toolconformance.plugins.loaders import confinement_of, loaded_as_of

    paths = {spec: options.resolve_path(config, "toolconformance_plugin", spec) for spec in settings.plugins}
    return reporting.RunFacts(
        host=host_facts(settings, adapter),
        sandbox={**confinement.summary(), "plugins": {spec: confinement_of(p) for spec, p in paths.items()}},
        loaded_as={spec: loaded_as_of(path) for spec, path in paths.items()},
    )


def host_facts(settings: options.Settings, adapter: Any) -> dict[str, Any]:
    """The host under test as it describes itself (``info``), for the report; what went wrong if it cannot."""
    if not settings.host_suites:
        return {"spec": settings.host, "name": None, "version": None, "capabilities": [], "checked": False}
    out: dict[str, Any] = {"spec": settings.host, "name": None, "version": None, "capabilities": []}
    if adapter is None:
        out["error"] = "no adapter was loaded"
        return out
    try:
        info = adapter.info()
    except Exception as exc:  # noqa: BLE001 - a host that cannot describe itself still gets a report
        out["error"] = f"info() raised {type(exc).__name__}: {exc}"
        return out
    if not isinstance(info, dict):
        out["error"] = f"info() answered {type(info).__name__}, not an object"
        return out
    out["name"] = None if info.get("name") is None else str(info["name"])
    out["version"] = None if info.get("version") is None else str(info["version"])
    out["capabilities"] = [str(c) for c in info.get("capabilities") or []]
    return out


def expand_plugin_specs(config: pytest.Config, settings: options.Settings) -> options.Settings:
    """A plugin that is not there is a usage error (exit 4), not a finding about it. A folder that
    declares several pi extensions (``package.json``'s ``pi.extensions``, as pi loads them) stands for
    each of them: the settings returned name them one by one."""
    from pytest_toolconformance.plugins.loaders import MANIFEST_NAME, pi_extension_entries
    from reference_host import PluginLoadError

    specs: list[str] = []
    for spec in settings.plugins:
        path = options.resolve_path(config, "toolconformance_plugin", spec)
        if not path.exists():
            raise pytest.UsageError(
                f"--toolconformance-plugin={spec}: {path} does not exist; "
                "give a plugin folder, its manifest or its entry file"
            )
        entries: list[Path] = []
        if path.is_dir() and not (path / MANIFEST_NAME).is_file():
            try:
                entries = pi_extension_entries(path)
            except PluginLoadError:
                entries = []  # an unreadable package.json is that plugin's load error, reported as such
        if len(entries) > 1:
            specs += [str(entry) for entry in entries]
        else:
            specs.append(spec)
    return replace(settings, plugins=tuple(specs)) if specs != list(settings.plugins) else settings


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
        lines += confinement.header()
        lines += openclaw_header(
            [(spec, options.resolve_path(config, "toolconformance_plugin", spec)) for spec in settings.plugins]
        )
    adapter = config.stash.get(ADAPTER_KEY, None)
    if adapter is not None:
        try:
            info = adapter.info()
            lines.insert(
                1,
                f"toolconformance: host under test: {info.get('name')} {info.get('version')} "
                f"({len(info.get('capabilities') or [])} capabilities)",
            )
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
