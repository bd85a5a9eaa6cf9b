"""Host adapters and the loader for ``--toolconformance-host``."""
