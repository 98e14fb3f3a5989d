-- grain: one row per entry of a run's runHistory; key: run_row_id, status_position
{#
From `console.ingestion_runs__run_history`: `run_row_id`; `status_position` (0 is the newest: the service lists the
history newest first); `status`; `status_at` ← `status_timestamp`.
#}
{% from 'macros/nested_lists.sql' import status_entries %}
select
    {{ status_entries('run_history', parent='run_row_id') }}
from {{ source('ingestion_runs__run_history') }} as run_history
