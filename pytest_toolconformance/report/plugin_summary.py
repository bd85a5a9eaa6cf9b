"""The terminal summary of the plugin suites: plugins, advertised bytes (COST-2), advisories.

Read from the test reports' ``user_properties``, so that it works the same under pytest-xdist
(where only the controller prints) as in a single process, and from the plugins this process loaded,
which plugin.py hands it as a function to ask at the end (they load during collection).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any, Protocol

import pytest

from pytest_toolconformance.options import Settings

PLUGIN_NAME = "toolconformance-plugin-suites"


class LoadedPlugin(Protocol):
    """What the summary reads of a plugin the run loaded (a ``plugins.under_test.PluginUnderTest``)."""

    name: str
    spec: str
    error: str | None
    loaded: object | None  # None: it did not load

    @property
    def confined(self) -> bool: ...

    def describe(self) -> str: ...


class PluginSuitesSummary:
    def __init__(
        self, config: pytest.Config, settings: Settings, loaded_plugins: Callable[[], Sequence[LoadedPlugin]]
    ) -> None:
        self.config = config
        self.settings = settings
        #: The plugins this process loaded so far (none on an xdist controller, which loads none).
        self.loaded_plugins = loaded_plugins
        self.is_worker = hasattr(config, "workerinput")
        self.costs: dict[str, tuple[str, str, int]] = {}
        self.advisories: dict[str, None] = {}
        #: How a passed check read its rule where a part of it did not apply (ERR-4's tag in a pi extension).
        self.notes: dict[str, None] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = list(getattr(report, "user_properties", None) or [])
        values = dict(props)
        if "advertised_bytes" in values:
            self.costs[report.nodeid] = (
                str(values.get("plugin")),
                str(values.get("tool")),
                int(values["advertised_bytes"]),
            )
        for key, value in props:
            if key == "advisory":
                self.advisories[str(value)] = None
            elif key == "note":
                self.notes[f"[{values.get('rule')}] {values.get('plugin')}/{values.get('tool')}: {value}"] = None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker:
            return
        plugins = self.loaded_plugins()
        write = terminalreporter.write_line
        if plugins:
            terminalreporter.write_sep("-", "toolconformance: plugins under test")
            for plugin in plugins:
                write(f"{plugin.name} ({plugin.spec}): {plugin.describe()}", red=plugin.error is not None)
            unconfined = [plugin.name for plugin in plugins if plugin.loaded is not None and not plugin.confined]
            if unconfined:
                write(
                    f"toolconformance: {len(unconfined)} plugin(s) ran unconfined here ({', '.join(unconfined)}): "
                    "their code could reach the network, the disk and this run's secrets; the header says why "
                    "(docs/access-model.md)",
                    red=True,
                )
        if self.costs:
            budget = self.settings.tool_budget
            terminalreporter.write_sep("-", "toolconformance: advertised bytes per tool (COST-2)")
            rows = sorted(set(self.costs.values()))
            width_p = max(len("plugin"), *(len(p) for p, _, _ in rows))
            width_t = max(len("tool"), *(len(t) for _, t, _ in rows))
            write(f"{'plugin':<{width_p}}  {'tool':<{width_t}}  {'bytes':>7}")
            for plugin, tool, size in rows:
                over = budget is not None and size > budget
                note = f"  over budget {budget}" if over else ""
                write(f"{plugin:<{width_p}}  {tool:<{width_t}}  {size:>7}{note}", red=over)
            write(
                f"budget: {budget if budget is not None else 'none (--toolconformance-tool-budget)'}; "
                f"total {sum(size for _, _, size in rows)} bytes on every turn that offers them all"
            )
        if self.notes:
            terminalreporter.write_sep("-", "toolconformance: parts of a rule not applicable to a plugin")
            for text in self.notes:
                write(text)
        if self.advisories:
            terminalreporter.write_sep("-", "toolconformance: plugin advisories (not failures)")
            for text in self.advisories:
                write(text, yellow=True)


class AdvisoriesToldOnce:
    """Each advisory is told once, in the kit's section: pytest's warnings summary would repeat it. The
    warning itself stays (``ToolConformanceAdvisory``) for anything that records warnings."""

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, Any, Any]:
        warnings = terminalreporter.stats.get("warnings")
        if warnings:
            terminalreporter.stats["warnings"] = [
                w for w in warnings if "ToolConformanceAdvisory" not in str(getattr(w, "message", ""))
            ]
        return (yield)
