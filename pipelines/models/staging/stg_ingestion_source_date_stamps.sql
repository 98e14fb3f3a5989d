-- grain: one row per date stamp of a source's history in a run; key: project, source_date_row_id
{#
From `console.ingestion_runs__granular_history__status_by_date`: `source_date_row_id` ← `_dlt_id`;
`source_history_row_id` ← `_dlt_parent_id`; `date_position`; `date_stamp` (date).
#}
select
    status_by_date.project,
    status_by_date._dlt_id as source_date_row_id,
    status_by_date._dlt_parent_id as source_history_row_id,
    status_by_date._dlt_list_idx as date_position,
    cast(status_by_date.date_stamp as date) as date_stamp
from {{ source('ingestion_runs__granular_history__status_by_date') }} as status_by_date
