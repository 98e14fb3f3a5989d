-- grain: one row per ingestion run (merged on run id); key: project, run_id
{#
From `console.ingestion_runs`: `run_row_id` ← `_dlt_id`; `run_id`; `latest_status`; `run_trigger` ← `trigger`;
`created_at`; `last_updated_at`.
#}
select
    runs.project,
    runs._dlt_id as run_row_id,
    runs.run_id,
    runs.latest_status,
    runs."trigger" as run_trigger,
    {{ utc_timestamp('runs.created_at') }} as created_at,
    {{ utc_timestamp('runs.last_updated_at') }} as last_updated_at
from {{ source('ingestion_runs') }} as runs
