"""A sibling module the plugin imports at top level."""


def upper(text: str) -> str:
    return text.upper()
