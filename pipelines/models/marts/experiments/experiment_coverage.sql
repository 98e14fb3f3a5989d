-- grain: one row per experiment the loaded data names, by a holdout or by its exposures; key: project, experiment_id
{#
From `stg_holdout_experiments`, `stg_holdouts`, `stg_cumulative_exposures` and `int_followed_experiments`.

The console lists no experiments: a run follows those its holdouts name and those in the `experiment_ids` setting
(`[sources.console]`). An experiment neither names is not followed and appears nowhere, this view included, unless
an earlier run followed it: then its exposures stay, and it is here with `is_followed` false. One a holdout names
whose exposures never loaded (the console answered with an error or an empty series: the run's summary says which)
is here with `has_exposures` false.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id` | the experiment |
| `holdout_names` | the holdouts that name it, comma-separated by name; null when none does (it is followed through `experiment_ids`) |
| `has_exposures` | some exposure was loaded for it |
| `first_date`, `last_date` | span of its loaded series; null without exposures |
| `is_followed` | the runs still read its series (`int_followed_experiments.is_followed`) |
#}
{% from 'macros/joins.sql' import join_on %}
with holdout_experiments as (
    select
        experiments.project,
        experiments.experiment_id,
        {% call string_agg("', '", "holdouts.holdout_name") %}distinct holdouts.holdout_name{% endcall %} as holdout_names
    from {{ ref('stg_holdout_experiments') }} as experiments
    inner join {{ ref('stg_holdouts') }} as holdouts
        {{ join_on('holdouts', 'experiments', 'holdout_row_id') }}
    group by experiments.project, experiments.experiment_id
),

loaded as (
    select
        project,
        experiment_id,
        min(exposure_date) as first_date,
        max(exposure_date) as last_date
    from {{ ref('stg_cumulative_exposures') }}
    group by project, experiment_id
),

coverage as (
    select
        coalesce(holdout_experiments.project, loaded.project) as project,
        coalesce(holdout_experiments.experiment_id, loaded.experiment_id) as experiment_id,
        holdout_experiments.holdout_names,
        loaded.experiment_id is not null as has_exposures,
        loaded.first_date,
        loaded.last_date
    from holdout_experiments
    full outer join loaded
        {{ join_on('loaded', 'holdout_experiments', 'experiment_id') }}
),

final as (
    select
        coverage.*,
        coalesce(following.is_followed, true) as is_followed
    from coverage
    left join {{ ref('int_followed_experiments') }} as following
        {{ join_on('following', 'coverage', 'experiment_id') }}
)

select * from final
