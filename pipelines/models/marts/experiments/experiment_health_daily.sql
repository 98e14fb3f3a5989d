-- grain: one row per experiment and day; key: project, experiment_id, exposure_date
{#
From `exposure_daily` and `view_parameters`: the health checks that read an experiment's own days, each day as a
run that morning would have seen it (a day's row reads only that day and the days before it), so the history of
a verdict is here as well as today's (`experiment_health` reads the last whole day).

A dip is a whole day whose new exposures fall below `dip_ratio` times the lowest of the 7 whole days before it.
Seven days hold each weekday once, so the weekly cycle's low day is in the baseline and a quiet Sunday is no dip;
the lowest of them, not their median, because an experiment's new exposures fall as the people it reaches have
been exposed (the first days are its highest), and the lowest is the most recent of a falling series. The shortfall
must also exceed three standard deviations of a count of that size (3√baseline), so a handful of exposures in a
small experiment is not a dip. The series' first day holds everyone exposed before the series began and is never a
baseline; a dip within the 7 days before lowers the baseline, so one outage is told once, not every day of a week.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id` | the experiment |
| `exposure_date` | the day |
| `day_number` | days of the series up to this one, 1 on its first day |
| `is_partial_day` | the console's current day, still counting (`exposure_daily.is_partial_day`): never a dip |
| `new_exposures` | the day's new exposures, all groups |
| `cumulative_exposures` | all groups' cumulative count that day |
| `baseline_exposures` | the lowest new exposures of the 7 days before (the series' first day left out); null until 7 such days exist |
| `is_dip` | `new_exposures < dip_ratio * baseline_exposures` and `baseline_exposures - new_exposures > 3 * sqrt(baseline_exposures)`; null on a partial day or without a baseline (not enough data) |
| `has_enough_data` | `day_number >= health_min_days` and `cumulative_exposures >= health_min_exposures`: enough for a verdict |
| `is_running_long` | `day_number > max_running_days` |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(daily='exposure_daily') }},

parameters as (
    {{ view_parameters('dip_ratio', 'health_min_days', 'health_min_exposures', 'max_running_days') }}
),

experiment_days as (
    select
        project,
        experiment_id,
        exposure_date,
        {{ bool_or('is_partial_day') }} as is_partial_day,
        cast(sum(new_exposures) as bigint) as new_exposures,
        cast(sum(cumulative_exposures) as bigint) as cumulative_exposures
    from daily
    group by project, experiment_id, exposure_date
),

numbered as (
    -- exposure_daily fills every calendar day of the series, so 7 rows back is 7 days back
    select
        experiment_days.*,
        row_number() over (partition by project, experiment_id order by exposure_date) as day_number
    from experiment_days
),

baselines as (
    select
        numbered.*,
        min(case when day_number > 1 and not is_partial_day then new_exposures end) over (
            partition by project, experiment_id
            order by exposure_date
            rows between 7 preceding and 1 preceding
        ) as baseline_exposures,
        count(case when day_number > 1 and not is_partial_day then 1 end) over (
            partition by project, experiment_id
            order by exposure_date
            rows between 7 preceding and 1 preceding
        ) as baseline_days
    from numbered
),

final as (
    select
        baselines.project,
        baselines.experiment_id,
        baselines.exposure_date,
        cast(baselines.day_number as integer) as day_number,
        baselines.is_partial_day,
        baselines.new_exposures,
        baselines.cumulative_exposures,
        case when baselines.baseline_days = 7 then baselines.baseline_exposures end as baseline_exposures,
        case
            when baselines.is_partial_day or baselines.baseline_days < 7 then null
            else baselines.new_exposures < parameters.dip_ratio * baselines.baseline_exposures
                and baselines.baseline_exposures - baselines.new_exposures > 3 * sqrt(baselines.baseline_exposures)
        end as is_dip,
        baselines.day_number >= parameters.health_min_days
            and baselines.cumulative_exposures >= parameters.health_min_exposures as has_enough_data,
        baselines.day_number > parameters.max_running_days as is_running_long
    from baselines
    cross join parameters
)

select * from final
