"""Errors the command line reports in one line (exit status 2)."""


class UsageError(Exception):
    """Bad command-line input: reported in one line, exit status 2."""
