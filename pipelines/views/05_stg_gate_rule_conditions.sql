-- grain: one row per condition of a gate rule; key: gate_condition_row_id
select
    conditions._dlt_id as gate_condition_row_id,
    conditions._dlt_parent_id as gate_rule_row_id,
    conditions._dlt_list_idx as condition_position,
    conditions.type as condition_type,
    conditions.operator,
    conditions.field,
    conditions.custom_id
from {{ source('gates__rules__conditions') }} as conditions
