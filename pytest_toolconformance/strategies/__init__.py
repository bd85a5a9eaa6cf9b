"""Hypothesis strategies for the plugin tool API: public, for the kit's suites and your own tests.

Everything here is plain data in the adapter contract's JSON shapes, so a strategy's output can be
installed in any host behind an adapter (:meth:`HostClient.install`) or handed to a plugin's own
handler in a unit test::

    from hypothesis import given
    from pytest_toolconformance import strategies as tcs

    @given(tcs.flat_schemas().flatmap(lambda s: tcs.breaking_arguments_for(s).map(lambda a: (s, a))))
    def test_my_handler_refuses_bad_arguments(case):
        schema, arguments = case
        ...

Strategies:

* :func:`identities` — session identities ``{"userId", "owner", "admin"}``.
* :func:`accesses` — access descriptors as ``currentAccess()`` returns them.
* :func:`flat_schemas` — the flat-object subset of TypeBox schemas (SCHEMA-1): an object root whose
  properties are strings, numbers, integers, booleans, arrays of scalars, literals (``const``) or
  unions of literals, each optional or required, laid out as TypeBox prints them.
* :func:`arguments_for` / :func:`breaking_arguments_for` — arguments a schema accepts / rejects
  (a wrong type, a missing required parameter, or only an unknown parameter).
* :func:`descriptions_near` — UTF-8 strings of ``limit - 1`` to ``limit + 1`` bytes that end in a
  multi-byte character, so that at ``limit + 1`` the character straddles the cut (CAP-1).
* :func:`external_definitions_near` — external definitions whose CAP-2 size is ``limit - 1`` to
  ``limit + 1`` bytes.
* :func:`catalogs` / :func:`session_specs` — scripted plugins mixing internal, external, scoped and
  deferred tools, and sessions to look at them from.

The sizes at the caps are measured by :mod:`pytest_toolconformance.measures`, the kit's own measures.

No hypothesis-jsonschema: it is broken with current Hypothesis, and the flat subset is small
enough to generate directly.

This module is the package's face; the strategies live by job in ``schemas.py``, ``sessions.py``,
``caps.py`` and ``catalogs.py`` beside it.
"""

from pytest_toolconformance.strategies.caps import descriptions_near, external_definitions_near
from pytest_toolconformance.strategies.catalogs import Catalog, CatalogTool, catalogs
from pytest_toolconformance.strategies.schemas import arguments_for, breaking_arguments_for, flat_schemas
from pytest_toolconformance.strategies.sessions import (
    ACCOUNTS,
    PLATFORMS,
    PROJECTS,
    accesses,
    identities,
    session_specs,
)

__all__ = [
    "ACCOUNTS",
    "PLATFORMS",
    "PROJECTS",
    "Catalog",
    "CatalogTool",
    "accesses",
    "arguments_for",
    "breaking_arguments_for",
    "catalogs",
    "descriptions_near",
    "external_definitions_near",
    "flat_schemas",
    "identities",
    "session_specs",
]
