"""`gatehouse alerts`: tell a person what is new since the last alert, once per condition and channel.

| module | holds |
|---|---|
| `conditions.py` | the conditions read from the analysis views (SRM, stalls, failed ingestion, stale gates) and a failed run; the messages a set of them makes |
| `ledger.py` | `analytics.alerts_sent`: what each channel was told, and what has cleared since |
| `delivery.py` | the channels (dlt's `runtime.slack_incoming_hook`, a generic JSON webhook) and one POST to each |
| `dispatch.py` | `send_alerts` (conditions -> what is new per channel -> sent -> recorded) and `alert_after_run`, a run's last step |
The command, `gatehouse alerts`, is `pipelines/cli/alerts.py`.
"""
