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
{% from 'macros/imports.sql' import imports %}
with {{ imports(daily='exposure_daily') }},

weights as (
    select * from analytics.srm_expected_weights
),

dated as (
    -- windows over one read of the days, not joins back to them: PostgreSQL, which cannot size these CTEs, chose
    -- nested loops that computed the days again once per row
    select
        project,
        experiment_id,
        group_id,
        exposure_date,
        max(exposure_date) over (partition by project, experiment_id) as last_date
    from daily
),

current_groups as (
    select
        dated.project,
        dated.experiment_id,
        dated.group_id,
        weights.weight
    from dated
    left join weights
        on weights.experiment_id = dated.experiment_id
        and weights.group_id = dated.group_id
    where dated.exposure_date = dated.last_date
),

coverage as (
    -- configured weights count only when every group of the experiment has one
    select
        current_groups.*,
        count(*) over (partition by project, experiment_id) as group_count,
        count(weight) over (partition by project, experiment_id) = count(*) over (partition by project, experiment_id)
        and sum(weight) over (partition by project, experiment_id) > 0 as has_configured_weights,
        sum(weight) over (partition by project, experiment_id) as weight_total
    from current_groups
),

final as (
    select
        project,
        experiment_id,
        group_id,
        group_count,
        case when has_configured_weights then 'configured' else 'even' end as expected_split,
        case
            when has_configured_weights then weight / weight_total
            else 1.0 / group_count
        end as expected_share
    from coverage
)

select * from final
