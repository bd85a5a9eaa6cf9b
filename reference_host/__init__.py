"""The reference host: an executable model of the plugin tool seam, in plain Python."""

from .errors import HostError, ManifestError, PluginLoadError, RegistrationError, SandboxError, SessionSpecError
from .tools import Tool, define_tool, image_result, result_problems, text_result
from .transport import is_transport_failure, mark_transport_failure

__all__ = [
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
