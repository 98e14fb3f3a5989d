-- grain: one row per holdout listed in a gate version's holdoutIDs; key: project, gate_version_id, holdout_position
{#
From `console.gates__holdout_i_ds`: `gate_version_id` ← `_dlt_parent_id`; `holdout_position`; `holdout_id` ←
`value`.
#}
{% from 'macros/entity_kinds.sql' import holdout_columns %}
select
    holdout_ids.project,
    {{ holdout_columns('gate') }}
from {{ source('gates__holdout_i_ds') }} as holdout_ids
