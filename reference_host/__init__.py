"""The reference host: an executable model of the plugin tool seam, in plain Python."""

from .errors import HostError, ManifestError, PluginLoadError, RegistrationError, SandboxError, SessionSpecError
from .host import Host
from .scripted import ScriptedPlugin
from .tools import Tool, define_tool, image_result, result_problems, text_result
from .transport import is_transport_failure, mark_transport_failure
from .typebox import Type

__all__ = [
    "Host",
    "ScriptedPlugin",
    "Type",
    "HostError",
    "ManifestError",
    "PluginLoadError",
    "RegistrationError",
    "SandboxError",
    "SessionSpecError",
    "Tool",
    "define_tool",
    "image_result",
    "is_transport_failure",
    "mark_transport_failure",
    "result_problems",
    "text_result",
]

import logging as _logging

# A library does not print: applications decide where plugin log lines go.
_logging.getLogger(__name__).addHandler(_logging.NullHandler())
