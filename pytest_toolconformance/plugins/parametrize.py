"""Test parametrization of the plugin suites: one check per rule, per plugin or per tool."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_toolconformance.plugins.under_test import ToolUnderTest, plugin_run
from pytest_toolconformance.rules import MARKER

#: The argument the plugin checks are parametrized by; a name no user fixture is likely to have.
TARGET_ARG = "toolconformance_target"


@dataclass(frozen=True)
class CheckTarget:
    """What one parametrized plugin check is about: its rule, a plugin (by index) and maybe one of its tools."""

    rule: str
    plugin: int
    tool: int | None = None


RuleSpec = Sequence[str] | Callable[[Any], Sequence[str]]


def _rules(spec: RuleSpec, subject: Any) -> Sequence[str]:
    return spec(subject) if callable(spec) else spec


def for_each_plugin(rules: RuleSpec, *, loaded: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Parametrize a test by plugin (only the plugins that installed, unless ``loaded=False``)."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._toolconformance_for = ("plugin", rules, loaded)  # type: ignore[attr-defined]
        return fn

    return mark


def for_each_tool(
    rules: RuleSpec,
    *,
    select: Callable[[ToolUnderTest], bool] = lambda t: t.accepted,
    applies_to: str = "",
    rules_without_tools: tuple[str, ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Parametrize a test by plugin and tool, one check per rule: ids like ``NAME-1-myplugin-MyTool``.

    ``applies_to`` says which tools ``select`` keeps, for the skip when there are none.
    ``rules_without_tools``: where ``rules`` is a function of the tool, the rules the check stands for
    when there is no tool to ask it (so that the report counts them not applicable, not never run).
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._toolconformance_for = ("tool", rules, select)  # type: ignore[attr-defined]
        fn._toolconformance_applies_to = applies_to  # type: ignore[attr-defined]
        fn._toolconformance_rules_without_tools = rules_without_tools  # type: ignore[attr-defined]
        return fn

    return mark


def generate_tests(metafunc: pytest.Metafunc) -> None:
    """``pytest_generate_tests`` of the plugin suite modules."""
    spec = getattr(metafunc.function, "_toolconformance_for", None)
    if spec is None or TARGET_ARG not in metafunc.fixturenames:
        return
    level, rules, option = spec
    run = plugin_run(metafunc.config)
    listing = run.listing()
    params = []
    for plugin in listing:
        if level == "plugin":
            if option and not plugin.ok:
                continue
            for rule in _rules(rules, plugin):
                params.append(
                    pytest.param(
                        CheckTarget(rule, plugin.index),
                        id=f"{rule}-{plugin.name}",
                        marks=[getattr(pytest.mark, MARKER)(rule)],
                    )
                )
            continue
        for index, tool in enumerate(plugin.tools):
            if not option(tool):
                continue
            # A refused duplicate of an accepted name gets its own id, not pytest's "Echo0"/"Echo1".
            duplicated = sum(t.name == tool.name for t in plugin.tools) > 1
            suffix = "-refused" if tool.refusal is not None and duplicated else ""
            for rule in _rules(rules, tool):
                params.append(
                    pytest.param(
                        CheckTarget(rule, plugin.index, index),
                        id=f"{rule}-{plugin.name}-{tool.name}{suffix}",
                        marks=[getattr(pytest.mark, MARKER)(rule)],
                    )
                )
    if not params:
        loaded = [p for p in listing if p.ok]
        applies_to = getattr(metafunc.function, "_toolconformance_applies_to", "")
        why = (
            # The plugin's own REG-1 check says why; its other rules wait on it, they were not skipped.
            "blocked by REG-1: no plugin could be loaded (see test_plugin_loads)"
            if not loaded
            else "not applicable: no tool of the plugins under test is one this check applies to"
            + (f" ({applies_to})" if applies_to else "")
        )
        # Marked with its rules (where they do not depend on the subject), so that the report
        # counts the rule as not applicable, not as never run.
        stands_for = (
            getattr(metafunc.function, "_toolconformance_rules_without_tools", ()) if callable(rules) else rules
        )
        marks = [getattr(pytest.mark, MARKER)(rule) for rule in stands_for]
        params = [pytest.param(None, id="nothing-to-check", marks=[pytest.mark.skip(reason=why), *marks])]
    metafunc.parametrize(TARGET_ARG, params)
