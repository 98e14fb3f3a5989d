-- grain: one row per status entry of a source and date stamp in a run; key: project, source_date_row_id, status_position
{#
From `console.ingestion_runs__granular_history__status_by_date__statuses`: `source_date_row_id`; `status_position`
(0 is the newest); `status`; `status_at`.
#}
{% from 'macros/nested_lists.sql' import status_entries %}
select
    statuses.project,
    {{ status_entries('statuses', parent='source_date_row_id') }}
from {{ source('ingestion_runs__granular_history__status_by_date__statuses') }} as statuses
