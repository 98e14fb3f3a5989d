-- grain: one row per holdout listed in a gate version's holdoutIDs; key: gate_version_id, holdout_position
select
    holdout_ids._dlt_parent_id as gate_version_id,
    holdout_ids._dlt_list_idx as holdout_position,
    holdout_ids.value as holdout_id
from {{ source('gates__holdout_i_ds') }} as holdout_ids
