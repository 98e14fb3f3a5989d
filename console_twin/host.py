"""ConsoleHost: one console address serving several organisations, each under its own server key.

The hosted service answers every project of a company at the same base URL and tells them apart by the
key a request carries (a project's server key, or its SCIM token): a host of twins does the same, so
the demo and the tests can load several projects from one address. Each organisation keeps its own
clock, request log and rate limit, as each project has its own on the service.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gatehouse.console_twin.service import Answer
from gatehouse.console_twin.settings import TwinSettings
from gatehouse.console_twin.twin import ConsoleTwin, Served


class ConsoleHost(Served):
    """Several twins behind one address, by project name; a request goes to the twin whose key it carries."""

    def __init__(self, twins: Mapping[str, ConsoleTwin]) -> None:
        if not twins:
            raise ValueError("a console host serves at least one organisation")
        keys = [twin.settings.api_key for twin in twins.values()]
        if len(set(keys)) != len(keys):
            raise ValueError("each organisation of a host needs its own server key")
        self.twins = dict(twins)

    @classmethod
    def of(cls, projects: Mapping[str, tuple[str, int]], settings: TwinSettings | None = None) -> ConsoleHost:
        """Organisations of (size, seed) by project name, each with a key and SCIM token of its own."""
        base = settings or TwinSettings()
        return cls({
            name: ConsoleTwin(size=size, seed=seed, settings=dataclasses.replace(
                base, api_key=f"console-{name}-{seed}-twin-key", scim_token=f"scim-{name}-{seed}-twin-token"))
            for name, (size, seed) in projects.items()
        })  # fmt: skip

    def twin_for(self, headers: Mapping[str, str]) -> ConsoleTwin:
        """The organisation a request is for; with no key it knows, the first one (which answers 401)."""
        key = headers.get("service-api-key")
        bearer = headers.get("authorization", "")
        for twin in self.twins.values():
            if key == twin.settings.api_key or bearer == f"Bearer {twin.settings.scim_token}":
                return twin
        return next(iter(self.twins.values()))

    # --- what the HTTP server and the transport need (gatehouse.console_twin.http_server.Console) ----------
    @property
    def settings(self) -> TwinSettings:
        return next(iter(self.twins.values())).settings

    def answer(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        if target.startswith("/_twin/"):
            # the twin's own controls (advance the clock) move every organisation together
            return [twin.answer(method, target, headers, body) for twin in self.twins.values()][-1]
        return self.twin_for(headers).answer(method, target, headers, body)

    def http_date(self) -> str:
        # The organisations share the twin's epoch; one advanced alone shows its own clock in its bodies.
        return next(iter(self.twins.values())).http_date()
