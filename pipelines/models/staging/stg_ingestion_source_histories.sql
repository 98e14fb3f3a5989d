-- grain: one row per source of a run's granularHistory; key: project, source_history_row_id
{#
From `console.ingestion_runs__granular_history`: `source_history_row_id` ← `_dlt_id`; `run_row_id` ←
`_dlt_parent_id`; `source_position`; `source_name` ← `source`; `latest_source_status`.
#}
select
    granular_history.project,
    granular_history._dlt_id as source_history_row_id,
    granular_history._dlt_parent_id as run_row_id,
    granular_history._dlt_list_idx as source_position,
    granular_history.source as source_name,
    granular_history.latest_source_status
from {{ source('ingestion_runs__granular_history') }} as granular_history
