-- grain: one row per target value of a gate rule condition; key: gate_condition_row_id, target_position
select
    target_values._dlt_parent_id as gate_condition_row_id,
    target_values._dlt_list_idx as target_position,
    -- the first type seen takes `value`; values of another type land in dlt's variant columns
    coalesce(
        cast(target_values.value as varchar),
        target_values.value__v_text,
        cast(target_values.value__v_bigint as varchar),
        cast(target_values.value__v_double as varchar)
    ) as target_value
from {{ source('gates__rules__conditions__target_value') }} as target_values
