-- grain: one row per extraction run (one `gatehouse run`); key: project, extraction_id
{#
From `console.extraction_runs`: `extraction_id`, `service_time`, `started_at`, `finished_at` (UTC timestamps);
`followed_experiment_count`, how many experiments the run followed (null when the run loaded no exposures, or
ran before gatehouse recorded it); `extraction_row_id` ← `_dlt_id`; `load_id` ← `_dlt_load_id`.
#}
select
    extraction_runs.project,
    extraction_runs.extraction_id,
    {{ utc_timestamp('extraction_runs.service_time') }} as service_time,
    {{ utc_timestamp('extraction_runs.started_at') }} as started_at,
    {{ utc_timestamp('extraction_runs.finished_at') }} as finished_at,
    extraction_runs.followed_experiment_count,
    extraction_runs._dlt_id as extraction_row_id,
    extraction_runs._dlt_load_id as load_id
from {{ source('extraction_runs') }} as extraction_runs
