"""register() blocks forever."""

from __future__ import annotations

import time
from typing import Any


def register(ctx: Any) -> None:
    time.sleep(3600)
