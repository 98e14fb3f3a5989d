-- grain: one row per experiment; key: project, experiment_id
{#
From `exposure_daily`, `as_of`, `int_followed_experiments` and `view_parameters`.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id`, `group_count` | the experiment and its number of groups |
| `first_date`, `last_date`, `days_running` | span of the series, in days inclusive |
| `total_exposures` | sum of the groups' latest cumulative counts |
| `pace_through_date` | the last whole day of the series: its last day, or the day before when that is the console's current day, still counting (`exposure_daily.is_partial_day`); for a concluded experiment, a day before it ended: its pace and trend are its own last days', not now's |
| `avg_daily_exposures_7d` | new exposures of the 7 days up to `pace_through_date` divided by the days available (fewer than 7 for a young series; null when it has no whole day yet) |
| `previous_avg_daily_exposures_7d` | the same over the 7 days before; null when the series is 7 days or shorter |
| `trend_pct`, `trend` | relative change of the pace; `up`, `down` or `flat` (within `trend_flat_band`); null without a previous window |
| `target_sample_size` | the parameter |
| `days_to_target` | 0 when reached; otherwise days at the current pace, rounded up; null when the pace is 0 or the experiment concluded or is no longer followed |
| `last_growth_date` | last day any group grew |
| `days_without_growth` | `as_of_date` minus `last_growth_date` (the series ending early counts as no growth) |
| `is_stalled` | "stalled: the experiment gets no new exposures": followed, not concluded, and `stall_days` or more without growth counted only to the day after the series' last computed day (days the service has not computed yet are unknown, not days without exposures) |
| `cumulative_drop_count` | group-days whose count went down |
| `is_concluded` | the series ended: followed, `lag_days` of 2 or more and either more than `late_days`, or it stops more than a day before the newest day the service computed for any experiment (the computation is not late, this series stopped); not stalled |
| `lag_days` | `as_of_date` minus `last_date`: 0 or 1 while the service computes exposures every day |
| `is_late` | "late: the service has not computed the last days": followed, `lag_days` from 2 to `late_days`, and the series reaches (to a day) the newest day the service computed for any experiment, so the whole computation lags; the source requests such a series on every run, and the missing days load when the service catches up |
| `is_followed` | gatehouse still reads its series (`int_followed_experiments`): false once its id left the `experiment_ids` setting and no holdout names it; its series then ends at the last run that followed it, it is neither concluded, stalled nor late, and its `lag_days` and `days_without_growth` count days it was not read |
| `last_followed_date` | the console's day at the latest run that followed it (null before gatehouse recorded what a run follows) |
| `status` | one word: `unfollowed` (no longer followed: wins over all the others, which it makes unknowable), `concluded`, `stalled` (wins over late: the computed days already show the stall), `late` or `running` |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(daily='exposure_daily', as_of='as_of', following='int_followed_experiments') }},

parameters as (
    {{ view_parameters('target_sample_size', 'stall_days', 'trend_flat_band', 'late_days') }}
),

experiment_days as (
    select
        project,
        experiment_id,
        exposure_date,
        count(*) as group_count,
        {{ bool_or('is_partial_day') }} as is_partial_day,
        cast(sum(cumulative_exposures) as bigint) as cumulative_exposures,
        cast(sum(new_exposures) as bigint) as new_exposures,
        count(case when is_cumulative_drop then 1 end) as drop_count
    from daily
    group by
        project,
        experiment_id,
        exposure_date
),

dated_days as (
    -- each day beside its experiment's last day and last whole day, by windows: the spans and the pace are then one
    -- aggregate, not a join back to the days (PostgreSQL sized it at one row and added up the days once per experiment)
    select
        experiment_days.*,
        max(exposure_date) over (partition by project, experiment_id) as last_date,
        -- the current day is still counting: a pace that counted it would read low every morning
        max(case when not is_partial_day then exposure_date end) over (partition by project, experiment_id)
            as pace_through_date
    from experiment_days
),

spans as (
    -- the 7 whole days up to pace_through_date against the 7 before them (fewer when the series is shorter)
    select
        project,
        experiment_id,
        min(exposure_date) as first_date,
        max(last_date) as last_date,
        max(pace_through_date) as pace_through_date,
        max(group_count) as group_count,
        max(case when new_exposures > 0 then exposure_date end) as last_growth_date,
        cast(sum(drop_count) as bigint) as cumulative_drop_count,
        max(case when exposure_date = last_date then cumulative_exposures end) as total_exposures,
        sum(case when exposure_date > {{ add_days('pace_through_date', -7) }}
            and exposure_date <= pace_through_date
            then new_exposures end) as recent_new_exposures,
        count(case when exposure_date > {{ add_days('pace_through_date', -7) }}
            and exposure_date <= pace_through_date
            then 1 end) as recent_days,
        sum(
            case
                when exposure_date > {{ add_days('pace_through_date', -14) }}
                    and exposure_date <= {{ add_days('pace_through_date', -7) }}
                    then new_exposures
            end
        ) as previous_new_exposures,
        count(
            case
                when exposure_date > {{ add_days('pace_through_date', -14) }}
                    and exposure_date <= {{ add_days('pace_through_date', -7) }}
                    then 1
            end
        ) as previous_days
    from dated_days
    group by project, experiment_id
),

rates as (
    select
        spans.project,
        spans.experiment_id,
        -- days the series lags the service's clock: 0 or 1 while the service computes every day
        cast({{ days_between('as_of.as_of_date', 'spans.last_date') }} as integer) as lag_days,
        -- as current as the service's computation (the newest day it computed for any experiment of the project, a
        -- window over the spans: the project's rows are kept or left out whole below): when that lags, the series is
        -- late, not ended
        spans.last_date >= {{ add_days('max(spans.last_date) over (partition by spans.project)', -1) }} as is_computed_through,
        -- growth counted up to the day after the last computed one: days the service has not computed
        -- yet are unknown, not days without exposures
        cast(
            greatest(
                {{ days_between(
                    'least(as_of.as_of_date, ' ~ add_days('spans.last_date', 1) ~ ')',
                    'coalesce(spans.last_growth_date, ' ~ add_days('spans.first_date', -1) ~ ')'
                ) }},
                0
            ) as integer
        ) as computed_days_without_growth,
        spans.group_count,
        spans.first_date,
        spans.last_date,
        spans.last_growth_date,
        spans.cumulative_drop_count,
        spans.total_exposures,
        spans.pace_through_date,
        -- an experiment no longer followed is no longer read: its series ends at the last run that followed it
        coalesce(following.is_followed, true) as is_followed,
        following.last_followed_date,
        cast(spans.recent_new_exposures as {{ double_type() }}) / nullif(spans.recent_days, 0) as avg_daily_exposures_7d,
        cast(spans.previous_new_exposures as {{ double_type() }}) / nullif(spans.previous_days, 0)
            as previous_avg_daily_exposures_7d
    from spans
    -- outer joins kept as inner ones by a filter PostgreSQL cannot see through (the same rows): it sizes an inner join
    -- on (project, key) or to the one-row-a-project `as_of` at one row
    left join as_of
        on as_of.project = spans.project
    left join following
        {{ join_on('following', 'spans', 'experiment_id') }}
    where coalesce(as_of.project is not null, false)
),

classified as (
    select
        rates.*,
        -- the service has not computed the last days yet (its daily computation runs late)
        rates.is_followed
            and rates.lag_days > 1 and rates.lag_days <= parameters.late_days and rates.is_computed_through as is_late,
        -- ended before the service's last computed day, or silent for longer than a late computation
        -- explains: the console stopped counting (not gatehouse: a series no longer read did not end)
        rates.is_followed
            and rates.lag_days > 1
            and (rates.lag_days > parameters.late_days or not rates.is_computed_through) as is_concluded,
        -- a running experiment whose computed days show no new exposure
        rates.is_followed
            and (rates.lag_days <= 1 or (rates.lag_days <= parameters.late_days and rates.is_computed_through))
            and rates.computed_days_without_growth >= parameters.stall_days as is_stalled
    from rates
    cross join parameters
),

final as (
    select
        rates.project,
        rates.experiment_id,
        rates.group_count,
        rates.first_date,
        rates.last_date,
        cast({{ days_between('rates.last_date', 'rates.first_date') }} + 1 as integer) as days_running,
        rates.total_exposures,
        rates.pace_through_date,
        rates.avg_daily_exposures_7d,
        rates.previous_avg_daily_exposures_7d,
        (rates.avg_daily_exposures_7d - rates.previous_avg_daily_exposures_7d)
            / nullif(rates.previous_avg_daily_exposures_7d, 0) as trend_pct,
        case
            when rates.previous_avg_daily_exposures_7d is null then null
            when rates.previous_avg_daily_exposures_7d = 0 and rates.avg_daily_exposures_7d = 0 then 'flat'
            when rates.previous_avg_daily_exposures_7d = 0 then 'up'
            when rates.avg_daily_exposures_7d > rates.previous_avg_daily_exposures_7d * (1 + parameters.trend_flat_band) then 'up'
            when rates.avg_daily_exposures_7d < rates.previous_avg_daily_exposures_7d * (1 - parameters.trend_flat_band)
                then 'down'
            else 'flat'
        end as trend,
        cast(parameters.target_sample_size as bigint) as target_sample_size,
        case
            when rates.total_exposures >= parameters.target_sample_size then 0
            when rates.is_concluded or not rates.is_followed then null
            when rates.avg_daily_exposures_7d > 0
                then cast(ceil((parameters.target_sample_size - rates.total_exposures) / rates.avg_daily_exposures_7d) as integer)
        end as days_to_target,
        rates.last_growth_date,
        -- counted to the as-of day: a series that stopped arriving has stopped growing too
        cast(greatest(
            {{ days_between('as_of.as_of_date', 'coalesce(rates.last_growth_date, ' ~ add_days('rates.first_date', -1) ~ ')') }},
            0
        ) as integer) as days_without_growth,
        rates.is_stalled,
        rates.cumulative_drop_count,
        rates.is_concluded,
        rates.lag_days,
        rates.is_late,
        rates.is_followed,
        rates.last_followed_date,
        -- one word for reports: a stall seen in the computed days wins over lateness
        case
            when not rates.is_followed then 'unfollowed'
            when rates.is_concluded then 'concluded'
            when rates.is_stalled then 'stalled'
            when rates.is_late then 'late'
            else 'running'
        end as status
    from classified as rates
    cross join parameters
    -- every project of `rates` has its one row of `as_of`: outer, so that PostgreSQL sizes the join at the rates' count
    left join as_of
        on as_of.project = rates.project
)

select * from final
