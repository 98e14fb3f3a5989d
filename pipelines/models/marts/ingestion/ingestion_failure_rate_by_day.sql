-- grain: one row per day (UTC) on which ingestion runs were enqueued; key: project, enqueued_date
{#
From `ingestion_run_health`: `project`, `enqueued_date`, `run_count`, `succeeded_count`, `failed_count`, `running_count`,
`failure_rate` (failed / (succeeded + failed)), `retry_count`, `avg_succeeded_duration_seconds`.
#}
with run_health as (
    select * from {{ ref('ingestion_run_health') }}
),

final as (
    select
        project,
        enqueued_date,
        count(*) as run_count,
        count(case when outcome = 'succeeded' then 1 end) as succeeded_count,
        count(case when outcome = 'failed' then 1 end) as failed_count,
        count(case when outcome = 'running' then 1 end) as running_count,
        -- over finished runs only: a running one has not failed (yet)
        cast(count(case when outcome = 'failed' then 1 end) as double)
            / nullif(count(case when outcome in ('succeeded', 'failed') then 1 end), 0) as failure_rate,
        cast(sum(retry_count) as bigint) as retry_count,
        avg(case when outcome = 'succeeded' then duration_seconds end) as avg_succeeded_duration_seconds
    from run_health
    group by project, enqueued_date
)

select * from final
