-- grain: one row per entry of a run's runHistory; key: run_row_id, status_position
{#
From `console.ingestion_runs__run_history`: `run_row_id`; `status_position` (0 is the newest: the service lists the
history newest first); `status`; `status_at` ← `status_timestamp`.
#}
select
    run_history._dlt_parent_id as run_row_id,
    -- the service lists the history newest first: position 0 is the latest status
    run_history._dlt_list_idx as status_position,
    run_history.status,
    cast(run_history.status_timestamp as timestamp with time zone) at time zone 'UTC' as status_at
from {{ source('ingestion_runs__run_history') }} as run_history
