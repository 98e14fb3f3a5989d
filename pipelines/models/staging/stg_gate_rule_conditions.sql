-- grain: one row per condition of a gate rule; key: project, gate_condition_row_id
{#
From `console.gates__rules__conditions`: `gate_condition_row_id` ← `_dlt_id`; `gate_rule_row_id` ← `_dlt_parent_id`;
`condition_position`; `condition_type` ← `type`; `operator`; `field`; `custom_id`.
#}
{% from 'macros/entity_kinds.sql' import condition_columns %}
select
    conditions.project,
    {{ condition_columns('gate') }}
from {{ source('gates__rules__conditions') }} as conditions
