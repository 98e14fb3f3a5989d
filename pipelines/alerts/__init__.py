"""`gatehouse alerts`: tell a person what is new since the last alert, once per condition and channel.

| module | holds |
|---|---|
| `conditions.py` | the conditions (the views' SRM, stalls, failed ingestion, stale gates; a failed run), their messages |
| `ledger.py` | `analytics.alerts_sent`: what each channel was told, and what has cleared since |
| `delivery.py` | the channels (dlt's `runtime.slack_incoming_hook`, a generic JSON webhook) and one POST to each |
| `dispatch.py` | `send_alerts` (conditions -> new per channel -> sent -> recorded); `alert_after_run`, a run's last step |
The command, `gatehouse alerts`, is `pipelines/cli/alerts.py`.
"""
