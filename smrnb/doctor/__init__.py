"""The environment doctor (filled in by the framework work)."""
