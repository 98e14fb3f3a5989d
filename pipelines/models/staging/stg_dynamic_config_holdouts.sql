-- grain: one row per holdout listed in a dynamic config version's holdoutIDs; key: project, config_version_id, holdout_position
{#
`config_version_id`, `holdout_position`, `holdout_id`.
#}
{% from 'macros/entity_kinds.sql' import holdout_columns %}
select
    holdout_ids.project,
    {{ holdout_columns('dynamic_config') }}
from {{ source('dynamic_configs__holdout_i_ds') }} as holdout_ids
