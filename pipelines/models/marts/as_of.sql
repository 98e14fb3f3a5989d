-- grain: one row per project, the "as of" time of every age in its analysis views, none before its first extraction; key: project
{#
The time every age of a project is counted from: its console's clock at its last extraction, never the wall clock, so that ages
stay right when the console's clock is not ours and do not grow between runs. Before any extraction has been
recorded (or when none recorded a time) there is no row, and the views that count ages (`current_gates`,
`current_dynamic_configs` and what reads them, `exposure_growth`) have no rows either.

The last extraction is the one whose time is latest by the earlier of its two clocks, the console's (`service_time`)
and this machine's (`started_at`; dlt's load ids are read from the same clock): a clock that ran ahead at one run,
the scheduler host's or the console's, then cannot hold `as_of` at that run once it is set right; one behind puts its
run earlier, until the next run. Ties go to the later load (`load_id`).

| column | meaning |
|---|---|
| `project` | the console |
| `as_of_at` | of the last extraction in `stg_extraction_runs` that recorded a time: its `service_time`, the console's `Date` header; its own `finished_at` when the console sent none |
| `as_of_date` | its date |
| `is_service_clock` | false when `finished_at` was used |
#}
{% from 'macros/extraction_order.sql' import latest_extraction_first %}
with extraction_runs as (
    select * from {{ ref('stg_extraction_runs') }}
    where service_time is not null or finished_at is not null
),

ranked_extractions as (
    select
        project,
        service_time,
        finished_at,
        row_number() over (
            partition by project
            order by {{ latest_extraction_first() }}
        ) as recency
    from extraction_runs
),

final as (
    select
        project,
        coalesce(service_time, finished_at) as as_of_at,
        cast(coalesce(service_time, finished_at) as date) as as_of_date,
        service_time is not null as is_service_clock
    from ranked_extractions
    where recency = 1
)

select * from final
