"""Scanning outputs for sentinel secrets: shared by the command tests and the secrets drill.

Each keeps its own sentinels (their twins accept different keys); the rule for what counts as a
leak lives here once: any run of SCAN_WINDOW characters of a secret, PEM armour lines aside.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# Armour lines are the same in every PEM key and public: finding one is no leak.
PEM_ARMOUR = frozenset({
    "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----", "-----END ENCRYPTED PRIVATE KEY-----",
})  # fmt: skip
SCAN_WINDOW = 10


def secret_fragments(secret: str) -> set[str]:
    """Every run of SCAN_WINDOW characters of a secret (PEM armour lines aside)."""
    lines = [line for line in secret.splitlines() if line.strip() not in PEM_ARMOUR]
    return {line[i : i + SCAN_WINDOW] for line in lines for i in range(max(1, len(line) - SCAN_WINDOW + 1))}


def fragments_by_name(secrets: dict[str, str]) -> dict[str, set[str]]:
    return {name: secret_fragments(value) for name, value in secrets.items()}


def leaked(text: str, fragments: dict[str, set[str]]) -> list[str]:
    """The names of the secrets any fragment of which appears in `text`, sorted."""
    return sorted(name for name, parts in fragments.items() if any(part in text for part in parts))


def leak_check(secrets: dict[str, str]) -> Callable[[str], list[str]]:
    """`check(text)`: the names of the `secrets` (name -> value) that `text` leaks, sorted."""
    fragments = fragments_by_name(secrets)
    return lambda text: leaked(text, fragments)


@dataclass
class CommandOutput:
    """One command run, as the scan reads it: its words, its exit code and what it printed."""

    argv: list[str]
    code: int
    out: str
    err: str
