"""Where alerts go: a Slack incoming webhook (dlt's own `runtime.slack_incoming_hook` setting) and/or a
generic JSON webhook (`gatehouse.alerts.webhook_url`), one POST each per alerting.

A channel that refuses, fails or times out is one line and never fails the load; the URLs are secrets
(a Slack hook is its own credential), so no line and no message names them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

import dlt
import httpx

from gatehouse.pipelines.alerts.conditions import Message
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.logs import redacting_filter
from gatehouse.pipelines.settings import DEFAULT_ALERT_TIMEOUT_S, seconds_setting, setting
from gatehouse.pipelines.untrusted import for_slack

SLACK = "slack"
WEBHOOK = "webhook"
SLACK_SETTING = "runtime.slack_incoming_hook"  # RUNTIME__SLACK_INCOMING_HOOK, [runtime] in .dlt/secrets.toml
WEBHOOK_SETTING = "gatehouse.alerts.webhook_url"  # GATEHOUSE__ALERTS__WEBHOOK_URL
TIMEOUT_SETTING = "gatehouse.alerts.timeout"  # GATEHOUSE__ALERTS__TIMEOUT, seconds
LABELS = {SLACK: "the Slack webhook", WEBHOOK: "the alert webhook"}


@dataclass(frozen=True)
class Channel:
    name: str
    url: str

    def __repr__(self) -> str:  # the URL is a credential
        return f"Channel({self.name})"


def configured_channels() -> list[Channel]:
    """The channels dlt's configuration names, each URL added to the secrets every log line is redacted of."""
    channels = []
    for name, url in ((SLACK, dlt.secrets.get(SLACK_SETTING)), (WEBHOOK, setting("alerts.webhook_url"))):
        if url:
            url = str(url).strip()
            redacting_filter.add(url)
            _check_address(name, url)
            channels.append(Channel(name, url))
    return channels


def _check_address(name: str, url: str) -> None:
    """A hook's address that no request could reach (`notaurl`, `ftp://…`, `http://[::1`) refused in one line, the
    address not shown (it is a credential): else every alert would be kept as undelivered, run after run."""
    setting = SLACK_SETTING if name == SLACK else WEBHOOK_SETTING
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - read for its check: a port that is no number raises
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise GatehouseError(
            f"{setting} ({setting.upper().replace('.', '__')}) is not an http:// or https:// address (not shown: it is a"
            " credential); nothing was sent"
        )


def alert_timeout() -> float:
    return seconds_setting(TIMEOUT_SETTING, DEFAULT_ALERT_TIMEOUT_S, zero_allowed=False)


def redact(text: str) -> str:
    """A message as any log line would be: no known secret in it (keys, tokens, passwords, the hooks)."""
    for secret in redacting_filter.secrets:
        text = text.replace(secret, "***")
    return text


def heading(label: str, count: int) -> str:
    return f"gatehouse: {count} new alert{'s' if count != 1 else ''} for {label}"


def payload(channel: Channel, label: str, messages: list[Message]) -> dict:
    if channel.name == SLACK:
        # Slack's incoming webhook takes one text; dlt's own send_slack_message sends the same shape. `mrkdwn: false`
        # does not stop Slack reading `<!channel>` or `<@U…>`: `&`, `<` and `>` go as entities (for_slack).
        text = "\n\n".join([heading(label, len(messages)), *(m.text for m in messages)])
        return {"text": for_slack(text), "mrkdwn": False}
    return {
        "source": "gatehouse",
        "destination": label,
        "alerts": [{"kind": m.kind, "keys": list(m.keys), "text": m.text} for m in messages],
    }


def post(channel: Channel, body: dict, timeout_s: float, transport: httpx.BaseTransport | None = None) -> str | None:
    """POSTs one alerting to a channel; None when it was taken, else the one line saying why not."""
    where = LABELS[channel.name]
    try:
        with httpx.Client(timeout=timeout_s, transport=transport, follow_redirects=False) as client:
            # JSON with every character past ASCII escaped: a bidi override or a control character in a name (or in
            # a key, the data's own id) reaches the receiver as `\u202e`, never raw (httpx's json= sends them raw)
            response = client.post(
                channel.url, content=json.dumps(body).encode("ascii"), headers={"Content-Type": "application/json"}
            )
    except httpx.TimeoutException:
        return f"{where} did not answer within {timeout_s:g} s"
    except httpx.InvalidURL:
        return f"{where} is not a valid URL (setting {SLACK_SETTING if channel.name == SLACK else WEBHOOK_SETTING})"
    except httpx.HTTPError as err:
        return f"{where} could not be reached: {redact(_reason(err))}"
    if response.status_code >= 300:
        return f"{where} answered HTTP {response.status_code}"
    return None


def _reason(err: Exception) -> str:
    # httpx's messages may quote the URL; the reason alone is what a person can act on
    reason = str(err).splitlines()[0] if str(err).strip() else type(err).__name__
    return reason.split(" for url ")[0]
