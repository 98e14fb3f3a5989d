-- grain: one row per experiment; key: project, experiment_id
{#
From `exposure_growth` (stall, lateness, status), `exposure_srm` (the sequential sample-ratio test),
`experiment_health_daily` (not enough data, dip, running long, read on the last whole day) and `view_parameters`:
each health check's verdict, one word a column, for reports and alerts. A check that is about a running experiment
says `concluded` or `unfollowed` instead of a verdict; the sample-ratio verdict holds for a concluded experiment too.
Each check's false-alarm rate, measured on simulated healthy experiments checked daily, is in docs/experiment-health.md.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id` | the experiment |
| `status` | `exposure_growth.status` |
| `days_running`, `total_exposures` | as `exposure_growth` |
| `checked_through_date` | the last whole day (`exposure_growth.pace_through_date`): the day the dip and data checks read |
| `data_check` | `not enough data` until the series has `health_min_days` days and `health_min_exposures` exposures by its last whole day (`experiment_health_daily.has_enough_data`), else `ok` |
| `srm_check` | `mismatch` (`exposure_srm.srm_detected`, valid from the first day), `not applicable` (fewer than two groups), `not enough data`, `ok`; `unfollowed` |
| `srm_p_value`, `srm_first_detected_on` | `exposure_srm.p_value`, `exposure_srm.first_detected_on` |
| `stall_check` | `stalled` (`exposure_growth.is_stalled`) or `ok` |
| `days_without_growth`, `last_growth_date` | as `exposure_growth` |
| `dip_check` | `dip` (`experiment_health_daily.is_dip` on `checked_through_date`), `not enough data` (no 7-day baseline yet), `ok` |
| `dip_exposures`, `dip_baseline_exposures` | that day's new exposures and its baseline |
| `duration_check` | `running long` when `days_running > max_running_days`, else `ok` |
| `max_running_days` | the parameter |
| `late_check` | `late` (`exposure_growth.is_late`: the service has not computed the last days) or `ok` |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(growth='exposure_growth', srm='exposure_srm', health_daily='experiment_health_daily') }},

parameters as (
    {{ view_parameters('max_running_days') }}
),

checked as (
    select
        growth.*,
        -- a running check says what the experiment is instead when it is not running
        case
            when not growth.is_followed then 'unfollowed'
            when growth.is_concluded then 'concluded'
        end as not_running,
        coalesce(last_whole_day.has_enough_data, false) as has_enough_data,
        last_whole_day.is_dip,
        last_whole_day.new_exposures as dip_exposures,
        last_whole_day.baseline_exposures as dip_baseline_exposures,
        srm.p_value as srm_p_value,
        srm.srm_detected,
        srm.first_detected_on as srm_first_detected_on
    from growth
    left join health_daily as last_whole_day
        {{ join_on('last_whole_day', 'growth', 'experiment_id', 'exposure_date = pace_through_date') }}
    left join srm
        {{ join_on('srm', 'growth', 'experiment_id') }}
),

final as (
    select
        checked.project,
        checked.experiment_id,
        checked.status,
        checked.days_running,
        checked.total_exposures,
        checked.pace_through_date as checked_through_date,
        case when checked.has_enough_data then 'ok' else 'not enough data' end as data_check,
        case
            when not checked.is_followed then 'unfollowed'
            when checked.srm_detected then 'mismatch'
            when checked.srm_p_value is null then 'not applicable'
            when not checked.has_enough_data then 'not enough data'
            else 'ok'
        end as srm_check,
        checked.srm_p_value,
        checked.srm_first_detected_on,
        coalesce(checked.not_running, case when checked.is_stalled then 'stalled' else 'ok' end) as stall_check,
        checked.days_without_growth,
        checked.last_growth_date,
        coalesce(
            checked.not_running,
            case
                when checked.is_dip then 'dip'
                when checked.is_dip is null then 'not enough data'
                else 'ok'
            end
        ) as dip_check,
        checked.dip_exposures,
        checked.dip_baseline_exposures,
        coalesce(
            checked.not_running,
            case when checked.days_running > parameters.max_running_days then 'running long' else 'ok' end
        ) as duration_check,
        cast(parameters.max_running_days as integer) as max_running_days,
        coalesce(checked.not_running, case when checked.is_late then 'late' else 'ok' end) as late_check
    from checked
    cross join parameters
)

select * from final
