-- grain: one row per condition of a dynamic config rule; key: config_condition_row_id
select
    conditions._dlt_id as config_condition_row_id,
    conditions._dlt_parent_id as config_rule_row_id,
    conditions._dlt_list_idx as condition_position,
    conditions.type as condition_type,
    conditions.operator,
    conditions.field,
    conditions.custom_id
from {{ source('dynamic_configs__rules__conditions') }} as conditions
