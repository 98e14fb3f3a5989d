"""Typed errors of the console client, and the redaction that keeps secrets out of them.

Every `ConsoleError` message passes through `redact()` when the error is built, so
`str(err)`, `repr(err)` and any log line made from it never hold the API key or the
SCIM token, even when the console echoes (part of) the key back, as its 401 text does.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any

from gatehouse.sources.console.constants import LOGGER_NAME, REDACTED, SECRET_FRAGMENT_LENGTH

PEM_ARMOUR = re.compile(r"-----(BEGIN|END) [A-Z0-9 ]+-----")


class SecretRegistry:
    """The secrets of every client made in this process, and a redactor over them.

    A secret is masked whole wherever it appears, and so are its recognisable beginning and end: servers echo a
    truncated key ("Key: console-xxx...", "…last8chr"). That is any run of text that starts (or ends) a line of the
    secret, is `SECRET_FRAGMENT_LENGTH` characters or more (case-insensitive), and, at the start, goes past the
    secret's scheme (the `console-` every key starts with, which alone says nothing). A run from the middle of a
    secret is never masked: a key that holds a word (`…INTERNAL…`) leaves the messages with that word readable.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._lines: frozenset[str] = frozenset()  # each secret line, lower-case, scheme and all

    def add(self, secret: str | None) -> None:
        if not secret:
            return
        with self._lock:
            if secret in self._secrets:
                return
            self._secrets.add(secret)
            # Line by line, PEM armour aside: "-----BEGIN PRIVATE KEY-----" is the same in every key and public.
            lines = [line.strip().lower() for line in secret.splitlines() or [secret] if not PEM_ARMOUR.fullmatch(line.strip())]
            self._lines = self._lines | {line for line in lines if len(line) >= SECRET_FRAGMENT_LENGTH}

    def redact(self, text: str) -> str:
        if not text:
            return text
        secrets, lines = self._secrets, self._lines  # read once: both are replaced, never mutated
        # Whole first (a multi-line key is one `***`, armour included), then each line's truncated beginning
        # and end: the longest run of the line's first (or last) characters at each place they appear.
        for secret in sorted(secrets, key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        for line in sorted(lines, key=len, reverse=True):
            text = _mask_runs(text, line, max(SECRET_FRAGMENT_LENGTH, _scheme_length(line) + 1))
            reversed_text = _mask_runs(text[::-1], line[::-1], SECRET_FRAGMENT_LENGTH, REDACTED[::-1])
            text = reversed_text[::-1]
        return text


def _mask_runs(text: str, line: str, shortest: int, mask: str = REDACTED) -> str:
    """`text` with every run that begins as `line` does, `shortest` characters or more (case-insensitive),
    masked as far as it goes on matching."""
    lowered = text.lower()
    start = lowered.find(line[:shortest])
    while start != -1:
        end = start + shortest
        while end < len(text) and end - start < len(line) and lowered[end] == line[end - start]:
            end += 1
        text = text[:start] + mask + text[end:]
        lowered = text.lower()
        start = lowered.find(line[:shortest], start + len(mask))
    return text


secrets = SecretRegistry()


def register_secret(secret: str | None) -> None:
    """Make `secret` (whole, and its truncated beginning or end) invisible in errors and client logs."""
    secrets.add(secret)


def _scheme_length(secret_line: str) -> int:
    """The length of a key's scheme, `console-` or `secret-` (up to its first dash, in its first 16 characters)."""
    dash = secret_line.find("-", 0, 16)
    return dash + 1 if dash > 0 else 0


def redact(text: Any) -> str:
    return secrets.redact(str(text))


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class ConsoleError(Exception):
    """A failure talking to the console. `str()` is one actionable line without secrets."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        field_errors: Iterable[dict] | None = None,
        method: str | None = None,
        path: str | None = None,
    ) -> None:
        self.message = redact(one_line(message, limit=2000))
        self.status = status
        self.field_errors = [
            {
                "property": redact(str(e.get("property", ""))),
                "errorMessage": redact(one_line(str(e.get("errorMessage", "")), limit=2000)),
            }
            for e in (field_errors or ())
            if isinstance(e, dict)
        ]
        self.method = method
        self.path = redact(path) if path else path
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, message={self.message!r})"

    def __reduce__(self):  # keep pickling (process pools, dlt workers) working with keyword-only args
        return (_rebuild, (type(self), self.message, self.status, self.field_errors, self.method, self.path))


def _rebuild(cls, message, status, field_errors, method, path):
    return cls(message, status=status, field_errors=field_errors, method=method, path=path)


class LocalValidationError(ConsoleError):
    """A request body failed validation before anything was sent; `field_errors` lists every problem."""


class ValidationError(ConsoleError):
    """400: the console rejected the request; `field_errors` holds its per-field messages."""


class AuthError(ConsoleError):
    """401: the API key (or SCIM token) was missing, invalid or inactive."""


class ForbiddenError(ConsoleError):
    """403: the key is valid but lacks the permission for this operation."""


class NotFoundError(ConsoleError):
    """404: the id does not exist (or is not visible to this key)."""


class ThrottledError(ConsoleError):
    """429 and retries exhausted (or a create, which is never retried)."""


class ServerError(ConsoleError):
    """5xx and retries exhausted (or a create, which is never retried)."""


class TransportError(ConsoleError):
    """No usable answer: timeout, refused or dropped connection, malformed or truncated JSON."""


class PaginationError(ConsoleError):
    """A list could not be read completely (a `nextPage` that does not advance, totals that disagree)."""


class OutcomeUnknownError(ConsoleError):
    """A create was sent but its answer never came; it may or may not exist. Not retried."""


class ConfigurationError(ConsoleError):
    """Bad base URL, missing key or token, or an invalid option: raised before any request."""


class RedactingLogFilter(logging.Filter):
    """Redacts registered secrets from every record of the `sources.console` logger."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text, record.exc_info = redact(text), None
        return True


def _install_log_filter() -> None:
    logger = logging.getLogger(LOGGER_NAME)
    if not any(isinstance(f, RedactingLogFilter) for f in logger.filters):
        logger.addFilter(RedactingLogFilter())


_install_log_filter()
