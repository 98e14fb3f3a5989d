-- grain: one row per ingestion source; key: source_name
with source_health as (
    select * from analytics.ingestion_source_health
),

final as (
    select
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
    group by source_name
)

select * from final
