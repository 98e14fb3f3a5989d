"""gatehouse under a scheduler: the Dagster definitions (`dagster.py`, extra `gatehouse[dagster]`), an example
Airflow DAG (`airflow_dag.py`) and what both derive the lineage from (`lineage.py`). Cron needs nothing here:
`gatehouse run --alerts` (docs/scheduling.md)."""
