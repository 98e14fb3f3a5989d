-- grain: one row per holdout listed in a gate version's holdoutIDs; key: project, gate_version_id, holdout_position
{#
From `console.gates__holdout_i_ds`: `gate_version_id`, the version whose row is its `_dlt_parent_id` (shared as for
rules); `holdout_position`; `holdout_id` ← `value`.
#}
{% from 'macros/entity_kinds.sql' import holdout_columns, version_list %}
{% call version_list('gate', 'gates__holdout_i_ds', 'holdout_ids') -%}
{{ holdout_columns('gate') }}
{%- endcall %}
