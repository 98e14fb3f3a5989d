-- grain: one row per source listed in a run's sources; key: project, run_row_id, source_position
{#
From `console.ingestion_runs__sources`: `run_row_id` ← `_dlt_parent_id`; `source_position`; `source_name` ← `value`.
#}
{% from 'macros/nested_lists.sql' import list_values %}
select
    sources.project,
    {{ list_values('sources', parent='run_row_id', position='source_position', value='source_name') }}
from {{ source('ingestion_runs__sources') }} as sources
