-- grain: one row per holdout (merged on id); key: project, holdout_id
{#
From `console.holdouts`: `holdout_row_id` ← `_dlt_id`; `holdout_id` ← `id`; `holdout_name` ← `name`; `description`;
`id_type`; `team`; `is_enabled`; `is_global`; `pass_percentage`; `targeting_gate_id`; `created_at`; `creator_id`;
`creator_name`; `last_modified_at`; `last_modifier_id`; `last_modifier_name`.
#}
select
    holdouts.project,
    holdouts._dlt_id as holdout_row_id,
    holdouts.id as holdout_id,
    holdouts.name as holdout_name,
    holdouts.description,
    holdouts.id_type,
    holdouts.team,
    holdouts.is_enabled,
    holdouts.is_global,
    cast(coalesce(holdouts.pass_percentage__v_double, holdouts.pass_percentage) as {{ double_type() }}) as pass_percentage,
    holdouts.targeting_gate_id,
    {{ epoch_ms_timestamp('holdouts.created_time') }} as created_at,
    holdouts.creator_id,
    holdouts.creator_name,
    {{ epoch_ms_timestamp('holdouts.last_modified_time') }} as last_modified_at,
    holdouts.last_modifier_id,
    holdouts.last_modifier_name
from {{ source('holdouts') }} as holdouts
