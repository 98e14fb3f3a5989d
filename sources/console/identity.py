"""Which console a client talks to, in the form a dataset records it: the service root and a key fingerprint.

The interface has no operation that names the account or the project behind a key (docs/decisions.md), and
one hosted service serves many projects at the same base URL, each with its own server key. So a console is
told apart by its base URL together with a one-way fingerprint of its key: enough to notice a run pointed at
another project, never enough to recover the key, which is not recorded anywhere.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import urlsplit

# Twelve hex digits of SHA-256: collisions between a team's handful of keys are out of reach, and a
# high-entropy server key cannot be recovered from them.
FINGERPRINT_DIGITS = 12
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class ConsoleIdentity:
    base_url: str
    key_fingerprint: str | None

    def __str__(self) -> str:
        return f"{self.base_url} (key {self.key_fingerprint or 'unknown'})"

    def same_console(self, other: ConsoleIdentity) -> bool:
        # A dataset loaded before identities were recorded may lack the fingerprint: the URL decides then.
        if self.base_url != other.base_url:
            return False
        return self.key_fingerprint is None or other.key_fingerprint is None or self.key_fingerprint == other.key_fingerprint


def identify(base_url: str, api_key: str | None) -> ConsoleIdentity:
    return ConsoleIdentity(normalised_base_url(base_url), key_fingerprint(api_key))


def normalised_base_url(base_url: str) -> str:
    """The service root as written by anyone: scheme and host lower-case, no default port, no trailing slash."""
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port and parts.port != _DEFAULT_PORTS.get(scheme) else ""
    return f"{scheme}://{host}{port}{parts.path.rstrip('/')}"


def key_fingerprint(api_key: str | None) -> str | None:
    if not api_key:
        return None
    return hashlib.sha256(api_key.strip().encode("utf-8")).hexdigest()[:FINGERPRINT_DIGITS]
