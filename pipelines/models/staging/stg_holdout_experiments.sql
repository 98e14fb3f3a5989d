-- grain: one row per experiment listed in a holdout's experimentIDs; key: project, holdout_row_id, experiment_position
{#
From `console.holdouts__experiment_i_ds`: `holdout_row_id`, `experiment_position`, `experiment_id` ← `value`.
#}
{% from 'macros/nested_lists.sql' import list_values %}
select
    experiment_ids.project,
    {{ list_values('experiment_ids', parent='holdout_row_id', position='experiment_position', value='experiment_id') }}
from {{ source('holdouts__experiment_i_ds') }} as experiment_ids
