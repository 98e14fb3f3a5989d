-- grain: one row per target value of a gate rule condition; key: project, gate_condition_row_id, target_position
{#
From `console.gates__rules__conditions__target_value`: `gate_condition_row_id` ← `_dlt_parent_id`;
`target_position`; `target_value` (text; `value` or whichever variant column holds it).
#}
{% from 'macros/entity_kinds.sql' import target_columns %}
select
    target_values.project,
    {{ target_columns('gate') }}
from {{ source('gates__rules__conditions__target_value') }} as target_values
