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
with source_health as (
    select * from {{ ref('ingestion_source_health') }}
),

final as (
    select
        project,
        source_name,
        count(*) as run_count,
        count(case when outcome = 'succeeded' then 1 end) as succeeded_count,
        count(case when outcome = 'failed' then 1 end) as failed_count,
        count(case when outcome = 'running' then 1 end) as running_count,
        count(case when outcome = 'incomplete' then 1 end) as incomplete_count,
        -- over the source's finished runs: neither running nor stopped by another source's failure
        cast(count(case when outcome = 'failed' then 1 end) as double)
            / nullif(count(case when outcome in ('succeeded', 'failed') then 1 end), 0) as failure_rate,
        cast(sum(retry_count) as bigint) as retry_count,
        avg(case when outcome = 'succeeded' then duration_seconds end) as avg_succeeded_duration_seconds,
        max(case when outcome = 'failed' then enqueued_at end) as last_failed_run_enqueued_at
    from source_health
    group by project, source_name
)

select * from final
