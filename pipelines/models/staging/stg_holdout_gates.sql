-- grain: one row per gate listed in a holdout's gateIDs; key: holdout_row_id, gate_position
{#
From `console.holdouts__gate_i_ds`: `holdout_row_id`, `gate_position`, `gate_id` ← `value`.
#}
select
    gate_ids._dlt_parent_id as holdout_row_id,
    gate_ids._dlt_list_idx as gate_position,
    gate_ids.value as gate_id
from {{ source('holdouts__gate_i_ds') }} as gate_ids
