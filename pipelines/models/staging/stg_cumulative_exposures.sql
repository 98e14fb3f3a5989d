-- grain: one row per experiment, group and reported day; key: project, experiment_id, group_id, exposure_date
{#
From `console.cumulative_exposures`: `experiment_id`; `group_id`; `group_name`; `exposure_date` ← `date` (date);
`cumulative_exposures` ← `exposures`.
#}
select
    exposures.project,
    exposures.experiment_id,
    exposures.group_id,
    exposures.group_name,
    cast(exposures.{{ quoted('date') }} as date) as exposure_date,
    cast(exposures.exposures as bigint) as cumulative_exposures
from {{ source('cumulative_exposures') }} as exposures
