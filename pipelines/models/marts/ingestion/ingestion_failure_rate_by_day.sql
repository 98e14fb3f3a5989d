-- grain: one row per day (UTC) on which ingestion runs were enqueued; key: project, enqueued_date
{#
From `ingestion_run_health`, the runs enqueued each day.

| column | meaning |
|---|---|
| `project` | the console |
| `enqueued_date` | the day (UTC) the runs were enqueued |
| `run_count` | runs enqueued that day |
| `succeeded_count`, `failed_count`, `running_count` | of them: ended `pulse_complete`; ended in an error status; not ended yet |
| `failure_rate` | failed / (succeeded + failed); null when none has ended |
| `retry_count` | the runs' retries: an error status followed by a new start, summed |
| `avg_succeeded_duration_seconds` | the mean time from enqueued to done of the runs that succeeded |
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
