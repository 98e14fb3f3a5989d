-- grain: one row per condition of a dynamic config rule; key: project, config_condition_row_id
{#
As `stg_gate_rule_conditions`, from `console.dynamic_configs__rules__conditions`: `config_condition_row_id`,
`config_rule_row_id`, `condition_position`, `condition_type`, `operator`, `field`, `custom_id`.
#}
{% from 'macros/entity_kinds.sql' import condition_columns %}
select
    conditions.project,
    {{ condition_columns('dynamic_config') }}
from {{ source('dynamic_configs__rules__conditions') }} as conditions
