-- grain: one row per rule of a gate version; key: project, gate_rule_row_id
{#
From `console.gates__rules`: `gate_rule_row_id` ← `_dlt_id`; `gate_version_id` ← `_dlt_parent_id`; `rule_position`;
`rule_id` ← `id`; `rule_base_id` ← `base_id`; `rule_name` ← `name`; `pass_percentage` (double).
#}
{% from 'macros/entity_kinds.sql' import rule_columns %}
select
    rules.project,
    {{ rule_columns('gate') }}
from {{ source('gates__rules') }} as rules
