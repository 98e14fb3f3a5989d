-- grain: one row per gate listed in a holdout's gateIDs; key: project, holdout_row_id, gate_position
{#
From `console.holdouts__gate_i_ds`: `holdout_row_id`, `gate_position`, `gate_id` ← `value`.
#}
{% from 'macros/nested_lists.sql' import list_values %}
select
    gate_ids.project,
    {{ list_values('gate_ids', parent='holdout_row_id', position='gate_position', value='gate_id') }}
from {{ source('holdouts__gate_i_ds') }} as gate_ids
