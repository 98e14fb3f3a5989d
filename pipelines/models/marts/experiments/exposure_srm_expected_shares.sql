-- grain: one row per experiment and group on the experiment's last day; key: project, experiment_id, group_id
{#
The split a sample-ratio test expects, in one place for the one-look chi-square (`exposure_srm`) and the sequential
test (`exposure_srm_daily`): each group of the experiment's last day with its share, from `srm_expected_weights`
when every one of those groups has a weight there (and they sum above 0), else equal shares. Read from
`exposure_daily`.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id`, `group_id` | the group |
| `group_count` | groups on the experiment's last day |
| `expected_split` | `configured` when every group has a weight in `srm_expected_weights`, else `even` |
| `expected_share` | the group's weight over the groups' total weight, or 1 / `group_count` |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(daily='exposure_daily') }},

weights as (
    select * from analytics.srm_expected_weights
),

last_dates as (
    select
        project,
        experiment_id,
        max(exposure_date) as last_date
    from daily
    group by project, experiment_id
),

current_groups as (
    select
        daily.project,
        daily.experiment_id,
        daily.group_id
    from daily
    inner join last_dates
        {{ join_on('last_dates', 'daily', 'experiment_id', 'last_date = exposure_date') }}
),

coverage as (
    -- configured weights count only when every group of the experiment has one
    select
        current_groups.project,
        current_groups.experiment_id,
        count(*) as group_count,
        count(weights.weight) = count(*) and sum(weights.weight) > 0 as has_configured_weights,
        sum(weights.weight) as weight_total
    from current_groups
    left join weights
        on weights.experiment_id = current_groups.experiment_id
        and weights.group_id = current_groups.group_id
    group by current_groups.project, current_groups.experiment_id
),

final as (
    select
        current_groups.project,
        current_groups.experiment_id,
        current_groups.group_id,
        coverage.group_count,
        case when coverage.has_configured_weights then 'configured' else 'even' end as expected_split,
        case
            when coverage.has_configured_weights then weights.weight / coverage.weight_total
            else 1.0 / coverage.group_count
        end as expected_share
    from current_groups
    inner join coverage
        {{ join_on('coverage', 'current_groups', 'experiment_id') }}
    left join weights
        on weights.experiment_id = current_groups.experiment_id
        and weights.group_id = current_groups.group_id
)

select * from final
