"""The one error type the engine raises for bad input.

It is a ``ValueError`` (so plain Python callers can catch it as usual) that also
carries a stable ``code`` and its parameters, so the user interface can say the
same thing in Chinese without parsing an English sentence.
"""

from __future__ import annotations


class InvalidInput(ValueError):
    """Input the engine cannot work with; ``str()`` is a one-line English message."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
