-- grain: one row per day (UTC) on which ingestion runs were enqueued; key: project, enqueued_date
{#
From `ingestion_run_health`: `project`, `enqueued_date`, `run_count`, `succeeded_count`, `failed_count`, `running_count`,
`failure_rate` (failed / (succeeded + failed)), `retry_count`, `avg_succeeded_duration_seconds`.
#}
{% from 'macros/ingestion_outcomes.sql' import run_outcomes, outcome_counts %}
with run_health as (
    select * from {{ ref('ingestion_run_health') }}
),

final as (
    select
        project,
        enqueued_date,
        {{ outcome_counts(run_outcomes) }}
    from run_health
    group by project, enqueued_date
)

select * from final
