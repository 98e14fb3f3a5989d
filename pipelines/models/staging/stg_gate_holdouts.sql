-- grain: one row per holdout listed in a gate version's holdoutIDs; key: project, gate_version_id, holdout_position
{#
From `console.gates__holdout_i_ds`: `gate_version_id`, the version whose row is its `_dlt_parent_id` (shared as for
rules); `holdout_position`; `holdout_id` ← `value`.
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/entity_kinds.sql' import holdout_columns, versions_by_row_hash %}
with versions as (
    {{ versions_by_row_hash('gate') }}
)

select
    holdout_ids.project,
    {{ holdout_columns('gate') }}
from {{ source('gates__holdout_i_ds') }} as holdout_ids
inner join versions
    {{ join_on('versions', 'holdout_ids', 'row_hash = _dlt_parent_id') }}
