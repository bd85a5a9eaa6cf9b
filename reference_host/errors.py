"""Errors the reference host raises for bad input.

Every error names the thing that is wrong, the rule ID where one applies, and what to do,
so that a plugin author never has to read a traceback from our internals.
"""

from __future__ import annotations


class HostError(Exception):
    """Base class of every error the reference host raises on purpose."""

    def __init__(self, message: str, *, rule: str | None = None, subject: str | None = None) -> None:
        self.rule = rule
        self.subject = subject
        self.detail = message
        prefix = f"[{rule}] " if rule else ""
        super().__init__(prefix + message)


class RegistrationError(HostError):
    """A tool registration was refused; the registry is left as it was."""


class ManifestError(HostError):
    """A plugin manifest was refused; the plugin is not installed."""


class PluginLoadError(HostError):
    """A plugin could not be loaded or its register() failed."""


class SessionSpecError(HostError):
    """A session or delegation spec contradicts itself or names unknown things."""


class SandboxError(HostError):
    """A guest path or sandbox operation cannot be understood (not a policy refusal)."""
