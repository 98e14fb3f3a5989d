-- grain: one row per holdout listed in a dynamic config version's holdoutIDs; key: config_version_id, holdout_position
select
    holdout_ids._dlt_parent_id as config_version_id,
    holdout_ids._dlt_list_idx as holdout_position,
    holdout_ids.value as holdout_id
from {{ source('dynamic_configs__holdout_i_ds') }} as holdout_ids
