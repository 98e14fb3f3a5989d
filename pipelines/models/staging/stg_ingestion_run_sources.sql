-- grain: one row per source listed in a run's sources; key: run_row_id, source_position
{#
From `console.ingestion_runs__sources`: `run_row_id` ← `_dlt_parent_id`; `source_position`; `source_name` ← `value`.
#}
select
    sources._dlt_parent_id as run_row_id,
    sources._dlt_list_idx as source_position,
    sources.value as source_name
from {{ source('ingestion_runs__sources') }} as sources
