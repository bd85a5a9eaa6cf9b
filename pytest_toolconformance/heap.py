"""Keeping the cyclic garbage collector off the objects a whole run shares.

After collection the process holds the interpreter's modules, the kit, Hypothesis and every
collected test: objects that live until the run ends. Python's full collections walk all of them
again and again (about twenty times in a host run), for nothing; frozen (:func:`gc.freeze`) they
are left out, and the run's own garbage is collected as before.
"""

from __future__ import annotations

import gc

import pytest


def freeze_what_collection_left(config: pytest.Config) -> None:
    """Freeze what the process holds now, and thaw it when ``config`` is cleaned up.

    No collection first: the garbage left by imports and collection is small and is freed at the
    thaw, while a full collection of everything the interpreter holds took longer (36 ms) than a
    one-plugin run spends in the collector otherwise."""
    gc.freeze()
    config.add_cleanup(gc.unfreeze)
