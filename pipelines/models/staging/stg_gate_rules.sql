-- grain: one row per rule of a gate version; key: project, gate_version_id, gate_rule_row_id
{#
From `console.gates__rules`: `gate_rule_row_id` ← `_dlt_id`; `gate_version_id`, the version whose row is its
`_dlt_parent_id` (versions of the same content share their stored rules: each is listed under each of them, so a
rule row's id repeats across such versions); `rule_position`; `rule_id` ← `id`; `rule_base_id` ← `base_id`;
`rule_name` ← `name`; `pass_percentage` (double).
#}
{% from 'macros/entity_kinds.sql' import rule_columns, version_list %}
{% call version_list('gate', 'gates__rules', 'rules') -%}
{{ rule_columns('gate') }}
{%- endcall %}
