{#
The outcomes of an ingestion run (`ingestion_run_health.outcome`) and of a source in it
(`ingestion_source_health.outcome`: a source whose run failed for another source is `incomplete`), and how
`ingestion_failure_rate_by_day` and `ingestion_failure_rate_by_source` sum them up.
#}
{% set run_outcomes = ["succeeded", "failed", "running"] %}
{% set source_outcomes = run_outcomes + ["incomplete"] %}

{#
From rows with `outcome`, `retry_count` and `duration_seconds`, to aggregate: `run_count`, a `<outcome>_count`
each of `outcomes`, `failure_rate` (failed / (succeeded + failed)), `retry_count` and
`avg_succeeded_duration_seconds`. Called at a column's indentation in a `select`.
#}
{% macro outcome_counts(outcomes) -%}
count(*) as run_count,
{% for outcome in outcomes %}
        count(case when outcome = '{{ outcome }}' then 1 end) as {{ outcome }}_count,
{% endfor %}
        -- over finished runs only: a running one has not failed (yet), an incomplete source was stopped by another
        cast(count(case when outcome = 'failed' then 1 end) as {{ double_type() }})
            / nullif(count(case when outcome in ('succeeded', 'failed') then 1 end), 0) as failure_rate,
        cast(sum(retry_count) as bigint) as retry_count,
        avg(case when outcome = 'succeeded' then duration_seconds end) as avg_succeeded_duration_seconds
{%- endmacro %}
