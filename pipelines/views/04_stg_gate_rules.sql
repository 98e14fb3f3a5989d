-- grain: one row per rule of a gate version; key: gate_rule_row_id
select
    rules._dlt_id as gate_rule_row_id,
    rules._dlt_parent_id as gate_version_id,
    rules._dlt_list_idx as rule_position,
    rules.id as rule_id,
    rules.base_id as rule_base_id,
    rules.name as rule_name,
    cast(coalesce(rules.pass_percentage__v_double, rules.pass_percentage) as double) as pass_percentage
from {{ source('gates__rules') }} as rules
