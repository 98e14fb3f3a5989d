-- grain: exactly one row, the "as of" time of every age in the analysis views; key: as_of_at
with extraction_clock as (
    -- the service's clock at the last extraction, so ages stay right when the console's clock is not ours
    select
        max(service_time) as service_time
    from analytics.stg_extraction_runs
),

final as (
    select
        coalesce(service_time, current_timestamp at time zone 'UTC') as as_of_at,
        cast(coalesce(service_time, current_timestamp at time zone 'UTC') as date) as as_of_date,
        service_time is not null as is_service_clock
    from extraction_clock
)

select * from final
