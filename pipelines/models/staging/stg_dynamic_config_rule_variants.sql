-- grain: one row per variant of a dynamic config rule; key: project, config_variant_row_id
{#
From `console.dynamic_configs__rules__variants`: `config_variant_row_id` ← `_dlt_id`; `config_rule_row_id` ←
`_dlt_parent_id`; `variant_position`; `variant_id` ← `id`; `variant_name` ← `name`; `pass_percentage`;
`return_value` (JSON as text).
#}
select
    variants.project,
    variants._dlt_id as config_variant_row_id,
    variants._dlt_parent_id as config_rule_row_id,
    variants._dlt_list_idx as variant_position,
    variants.id as variant_id,
    variants.name as variant_name,
    cast(coalesce(variants.pass_percentage__v_double, variants.pass_percentage) as {{ double_type() }}) as pass_percentage,
    cast(variants.return_value as {{ string_type() }}) as return_value
from {{ source('dynamic_configs__rules__variants') }} as variants
