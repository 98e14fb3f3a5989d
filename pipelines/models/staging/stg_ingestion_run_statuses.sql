-- grain: one row per entry of a run's runHistory; key: project, run_row_id, status_position
{#
From `console.ingestion_runs__run_history`: `run_row_id`; `status_position` (0 is the newest: the service lists the
history newest first); `status`; `status_at` ← `status_timestamp`.
#}
{% from 'macros/nested_lists.sql' import status_entries %}
select
    run_history.project,
    {{ status_entries('run_history', parent='run_row_id') }}
from {{ source('ingestion_runs__run_history') }} as run_history
