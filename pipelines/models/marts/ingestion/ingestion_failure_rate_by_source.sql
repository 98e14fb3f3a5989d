-- grain: one row per ingestion source; key: project, source_name
{#
From `ingestion_source_health`.

| column | meaning |
|---|---|
| `project` | the console |
| `source_name` | the source |
| `run_count`, `succeeded_count`, `failed_count`, `running_count`, `incomplete_count` | runs with the source, by its outcome |
| `failure_rate` | failed / (succeeded + failed); null before any finished |
| `retry_count` | sum |
| `avg_succeeded_duration_seconds` | mean `duration_seconds` of its successes |
| `last_failed_run_enqueued_at` | the latest failure |
#}
{% from 'macros/ingestion_outcomes.sql' import source_outcomes, outcome_counts %}
with source_health as (
    select * from {{ ref('ingestion_source_health') }}
),

final as (
    select
        project,
        source_name,
        {{ outcome_counts(source_outcomes) }},
        max(case when outcome = 'failed' then enqueued_at end) as last_failed_run_enqueued_at
    from source_health
    group by project, source_name
)

select * from final
