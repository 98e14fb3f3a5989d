-- grain: one row per rule of a dynamic config version; key: project, config_rule_row_id
{#
From `console.dynamic_configs__rules`: `config_rule_row_id` ← `_dlt_id`; `config_version_id` ← `_dlt_parent_id`;
`rule_position`; `rule_id`; `rule_base_id`; `rule_name`; `pass_percentage`; `return_value` (JSON as text).
#}
{% from 'macros/entity_kinds.sql' import rule_columns %}
select
    rules.project,
    {{ rule_columns('dynamic_config') }},
    cast(rules.return_value as varchar) as return_value
from {{ source('dynamic_configs__rules') }} as rules
