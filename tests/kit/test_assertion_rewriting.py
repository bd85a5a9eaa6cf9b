"""The kit's modules are not assertion-rewritten.

pytest marks every module of a plugin's distribution for assertion rewriting; where
PYTHONDONTWRITEBYTECODE is set it cannot cache the result and rewrites them on every run. The kit's
checks fail with findings, not asserts, so its package undoes the mark (pytest_toolconformance/
__init__.py). Measured in a wheel install with PYTHONDONTWRITEBYTECODE=1: 63 of 66 kit modules were
rewritten on each run before, 1 (the package itself) after (docs/performance.md).
"""

from __future__ import annotations

import sys

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook

import pytest_toolconformance


def test_pytests_rewriting_hook_keeps_the_marks_where_the_kit_undoes_them(pytester: pytest.Pytester) -> None:
    hook = AssertionRewritingHook(pytester.parseconfig())
    state = type("State", (), {"trace": lambda self, *a: None})()
    hook.mark_rewrite("pytest_toolconformance", "reference_host", "someone_else")
    assert hook._is_marked_for_rewrite("pytest_toolconformance.plugins.subject", state)
    sys.meta_path.insert(0, hook)
    try:
        pytest_toolconformance._not_for_assertion_rewriting("pytest_toolconformance", "reference_host")
    finally:
        sys.meta_path.remove(hook)
    assert hook._must_rewrite == {"someone_else"}
    assert not hook._is_marked_for_rewrite("pytest_toolconformance.plugins.subject", state)
    assert not hook._is_marked_for_rewrite("reference_host.session", state)
    assert hook._is_marked_for_rewrite("someone_else.module", state)
