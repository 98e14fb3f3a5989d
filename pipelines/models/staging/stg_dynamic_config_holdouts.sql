-- grain: one row per holdout listed in a dynamic config version's holdoutIDs; key: project, config_version_id, holdout_position
{#
As `stg_gate_holdouts`: `config_version_id`, `holdout_position`, `holdout_id`.
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/entity_kinds.sql' import holdout_columns, versions_by_row_hash %}
with versions as (
    {{ versions_by_row_hash('dynamic_config') }}
)

select
    holdout_ids.project,
    {{ holdout_columns('dynamic_config') }}
from {{ source('dynamic_configs__holdout_i_ds') }} as holdout_ids
inner join versions
    {{ join_on('versions', 'holdout_ids', 'row_hash = _dlt_parent_id') }}
