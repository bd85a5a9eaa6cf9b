"""Preconditions: another rule's behaviour a check needs, found broken, blocks the check instead of failing it."""

from __future__ import annotations

import json
from typing import Any

import pytest


def precondition(condition: bool, rule: str, expected: str, actual: Any) -> None:
    """A check that needs another rule's behaviour and finds it broken is *blocked by* that rule
    (skipped with the reason), not failed: it counts toward neither rule."""
    if not condition:
        pytest.skip(f"blocked by {rule}: this check needs {expected}; the host did {json.dumps(actual, default=repr)[:300]}")
