"""pathlab's version, for any module to print: the package root re-exports it, but a module of a
lower layer cannot import the root (it imports the whole library's face)."""

__version__ = "0.1.0"
