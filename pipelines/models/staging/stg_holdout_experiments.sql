-- grain: one row per experiment listed in a holdout's experimentIDs; key: holdout_row_id, experiment_position
{#
From `console.holdouts__experiment_i_ds`: `holdout_row_id`, `experiment_position`, `experiment_id` ← `value`.
#}
select
    experiment_ids._dlt_parent_id as holdout_row_id,
    experiment_ids._dlt_list_idx as experiment_position,
    experiment_ids.value as experiment_id
from {{ source('holdouts__experiment_i_ds') }} as experiment_ids
