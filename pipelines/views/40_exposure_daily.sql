-- grain: one row per experiment, group and day, from the group's first reported day to the experiment's last; key: experiment_id, group_id, exposure_date
with recursive exposures as (
    select * from analytics.stg_cumulative_exposures
),

calendar as (
    select
        min(exposure_date) as calendar_date
    from exposures

    union all

    select
        calendar_date + 1 as calendar_date
    from calendar
    where calendar_date < (select max(exposure_date) from exposures)
),

group_spans as (
    select
        experiment_id,
        group_id,
        min(exposure_date) as first_date,
        max(exposure_date) as last_reported_date
    from exposures
    group by
        experiment_id,
        group_id
),

experiment_spans as (
    select
        experiment_id,
        max(exposure_date) as last_date
    from exposures
    group by experiment_id
),

group_names as (
    -- the name a group had on its latest reported day
    select
        exposures.experiment_id,
        exposures.group_id,
        exposures.group_name
    from exposures
    inner join group_spans
        on group_spans.experiment_id = exposures.experiment_id
        and group_spans.group_id = exposures.group_id
        and group_spans.last_reported_date = exposures.exposure_date
),

group_days as (
    -- a day the service skipped still belongs to the series: its cumulative count is the last reported one
    select
        group_spans.experiment_id,
        group_spans.group_id,
        calendar.calendar_date as exposure_date
    from group_spans
    inner join experiment_spans
        on experiment_spans.experiment_id = group_spans.experiment_id
    inner join calendar
        on calendar.calendar_date between group_spans.first_date and experiment_spans.last_date
),

reported as (
    select
        group_days.experiment_id,
        group_days.group_id,
        group_days.exposure_date,
        exposures.exposure_date is not null as is_reported,
        max(exposures.exposure_date) over (
            partition by group_days.experiment_id, group_days.group_id
            order by group_days.exposure_date
            rows between unbounded preceding and current row
        ) as last_reported_date
    from group_days
    left join exposures
        on exposures.experiment_id = group_days.experiment_id
        and exposures.group_id = group_days.group_id
        and exposures.exposure_date = group_days.exposure_date
),

carried as (
    select
        reported.experiment_id,
        reported.group_id,
        reported.exposure_date,
        reported.is_reported,
        last_report.cumulative_exposures,
        lag(last_report.cumulative_exposures) over (
            partition by reported.experiment_id, reported.group_id
            order by reported.exposure_date
        ) as previous_cumulative_exposures
    from reported
    inner join exposures as last_report
        on last_report.experiment_id = reported.experiment_id
        and last_report.group_id = reported.group_id
        and last_report.exposure_date = reported.last_reported_date
),

final as (
    select
        carried.experiment_id,
        carried.group_id,
        group_names.group_name,
        carried.exposure_date,
        carried.cumulative_exposures,
        -- the day's increment; a cumulative series that goes down adds nothing that day and is flagged
        case
            when carried.previous_cumulative_exposures is null then carried.cumulative_exposures
            when carried.cumulative_exposures > carried.previous_cumulative_exposures
                then carried.cumulative_exposures - carried.previous_cumulative_exposures
            else 0
        end as new_exposures,
        coalesce(carried.cumulative_exposures < carried.previous_cumulative_exposures, false) as is_cumulative_drop,
        case
            when carried.cumulative_exposures < carried.previous_cumulative_exposures
                then carried.previous_cumulative_exposures - carried.cumulative_exposures
            else 0
        end as dropped_exposures,
        carried.is_reported,
        cast(
            sum(carried.cumulative_exposures) over (partition by carried.experiment_id, carried.exposure_date) as bigint
        ) as experiment_cumulative_exposures,
        cast(carried.cumulative_exposures as double) / nullif(
            sum(carried.cumulative_exposures) over (partition by carried.experiment_id, carried.exposure_date),
            0
        ) as exposure_share
    from carried
    inner join group_names
        on group_names.experiment_id = carried.experiment_id
        and group_names.group_id = carried.group_id
)

select * from final
