-- grain: one row per holdout listed in a dynamic config version's holdoutIDs; key: project, config_version_id, holdout_position
{#
As `stg_gate_holdouts`: `config_version_id`, `holdout_position`, `holdout_id`.
#}
{% from 'macros/entity_kinds.sql' import holdout_columns, version_list %}
{% call version_list('dynamic_config', 'dynamic_configs__holdout_i_ds', 'holdout_ids') -%}
{{ holdout_columns('dynamic_config') }}
{%- endcall %}
