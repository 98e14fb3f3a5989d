-- grain: one row per extraction run (one `gatehouse run`); key: project, extraction_id
{#
From `console.extraction_runs`: `extraction_id`, `service_time`, `started_at`, `finished_at` (UTC timestamps);
`load_id` ← `_dlt_load_id`.
#}
select
    extraction_runs.project,
    extraction_runs.extraction_id,
    cast(extraction_runs.service_time as timestamp with time zone) at time zone 'UTC' as service_time,
    cast(extraction_runs.started_at as timestamp with time zone) at time zone 'UTC' as started_at,
    cast(extraction_runs.finished_at as timestamp with time zone) at time zone 'UTC' as finished_at,
    extraction_runs._dlt_load_id as load_id
from {{ source('extraction_runs') }} as extraction_runs
