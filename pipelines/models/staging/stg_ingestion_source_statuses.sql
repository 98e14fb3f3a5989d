-- grain: one row per status entry of a source and date stamp in a run; key: source_date_row_id, status_position
{#
From `console.ingestion_runs__granular_history__status_by_date__statuses`: `source_date_row_id`; `status_position`
(0 is the newest); `status`; `status_at`.
#}
select
    statuses._dlt_parent_id as source_date_row_id,
    -- listed newest first, as the run history: position 0 is the latest status for that date stamp
    statuses._dlt_list_idx as status_position,
    statuses.status,
    cast(statuses.status_timestamp as timestamp with time zone) at time zone 'UTC' as status_at
from {{ source('ingestion_runs__granular_history__status_by_date__statuses') }} as statuses
