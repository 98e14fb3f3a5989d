-- grain: one row per experiment an extraction run followed; key: project, extraction_row_id, experiment_position
{#
From `console.extraction_runs__followed_experiment_ids`: `extraction_row_id`, `experiment_position`,
`experiment_id` ← `value`: those in the `experiment_ids` setting first, then those the holdouts named. Empty for
a run that loaded no exposures and for the runs before gatehouse recorded it (`stg_extraction_runs.followed_experiment_count`
null).
#}
{% from 'macros/nested_lists.sql' import list_values %}
select
    experiment_ids.project,
    {{ list_values('experiment_ids', parent='extraction_row_id', position='experiment_position', value='experiment_id') }}
from {{ source('extraction_runs__followed_experiment_ids') }} as experiment_ids
