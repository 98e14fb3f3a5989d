-- grain: one row per target value of a dynamic config rule condition; key: project, config_condition_row_id, target_position
{#
As `stg_gate_condition_targets`: `config_condition_row_id`, `target_position`, `target_value`.
#}
{% from 'macros/entity_kinds.sql' import target_columns %}
select
    target_values.project,
    {{ target_columns('dynamic_config') }}
from {{ source('dynamic_configs__rules__conditions__target_value') }} as target_values
