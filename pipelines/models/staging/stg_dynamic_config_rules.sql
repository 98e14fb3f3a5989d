-- grain: one row per rule of a dynamic config version; key: project, config_version_id, config_rule_row_id
{#
From `console.dynamic_configs__rules`: `config_rule_row_id` ← `_dlt_id`; `config_version_id`, the version whose row
is its `_dlt_parent_id` (shared as for gates); `rule_position`; `rule_id`; `rule_base_id`; `rule_name`;
`pass_percentage`; `return_value` (JSON as text).
#}
{% from 'macros/entity_kinds.sql' import rule_columns, version_list %}
{% call version_list('dynamic_config', 'dynamic_configs__rules', 'rules') -%}
{{ rule_columns('dynamic_config') }},
    cast(rules.return_value as {{ string_type() }}) as return_value
{%- endcall %}
