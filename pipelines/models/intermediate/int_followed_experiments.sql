-- grain: one row per experiment with exposures loaded, followed by a recorded extraction or named by a loaded holdout; key: project, experiment_id
{#
Whether gatehouse still follows an experiment. The console lists no experiments: a run follows those in the
`experiment_ids` setting and those its holdouts name, and records which (`stg_extraction_run_experiments`). An
experiment whose id left that setting, or that its holdout stopped naming, is no longer requested: its loaded
exposures stay, and end at the last run that followed it. Read by `exposure_growth` and `experiment_coverage`.

The deciding run is the project's latest that counted what it followed (`followed_experiment_count`), in
`as_of`'s order; a run that loaded no exposures counts nothing and decides nothing. A run lists the ids only when
they are not those of the last run that listed them (its count then matches the ids recorded): a run that lists
none follows what the last listing run before it listed. A project none of whose runs listed them (loaded before
gatehouse did) follows every experiment, as the views showed before. An experiment a loaded holdout names stays followed
even when the latest run could not read that holdout (the run's summary reports the skip).

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id` | the experiment |
| `is_followed` | the deciding run followed it, a loaded holdout names it, or the project recorded no run's experiments |
| `last_followed_at` | the console's time at the latest run that followed it (`service_time`, else `finished_at`); null when no counting run did |
| `last_followed_date` | its date |
#}
{% from 'macros/extraction_order.sql' import latest_extraction_first %}
{% from 'macros/joins.sql' import join_on, left_joins %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(followed_ids='stg_extraction_run_experiments', holdout_experiments='stg_holdout_experiments',
                holdouts='stg_holdouts') }},

recorded_lists as (
    select
        project,
        extraction_row_id,
        count(*) as experiment_count
    from followed_ids
    group by project, extraction_row_id
),

counting_runs as (
    -- the runs that counted the experiments they followed, latest first; a listing run's ids are all there
    select
        runs.project,
        runs.extraction_row_id,
        coalesce(runs.service_time, runs.finished_at) as extracted_at,
        runs.followed_experiment_count = coalesce(recorded_lists.experiment_count, 0) as is_listing,
        row_number() over (partition by runs.project order by {{ latest_extraction_first() }}) as recency
    from {{ ref('stg_extraction_runs') }} as runs
    left join recorded_lists
        {{ join_on('recorded_lists', 'runs', 'extraction_row_id') }}
    where runs.followed_experiment_count is not null
        and (runs.service_time is not null or runs.finished_at is not null)
),

epochs as (
    -- each counting run with the listing run whose ids it followed: itself, or the latest listing run before it
    select
        project,
        extraction_row_id,
        extracted_at,
        recency,
        min(case when is_listing then recency end) over (
            partition by project order by recency desc rows between unbounded preceding and current row
        ) as listing_recency
    from counting_runs
),

recording_projects as (
    select distinct project
    from counting_runs
    where is_listing
),

listed as (
    select
        counting_runs.project,
        counting_runs.recency as listing_recency,
        followed_ids.experiment_id
    from counting_runs
    inner join followed_ids
        {{ join_on('followed_ids', 'counting_runs', 'extraction_row_id') }}
    where counting_runs.is_listing
),

last_followings as (
    -- per experiment: whether the latest counting run followed it, and when a run last did
    select
        epochs.project,
        listed.experiment_id,
        min(epochs.recency) as recency,
        max(epochs.extracted_at) as last_followed_at
    from epochs
    inner join listed
        on listed.project = epochs.project and listed.listing_recency = epochs.listing_recency
    group by epochs.project, listed.experiment_id
),

named as (
    select distinct
        holdout_experiments.project,
        holdout_experiments.experiment_id
    from holdout_experiments
    inner join holdouts
        {{ join_on('holdouts', 'holdout_experiments', 'holdout_row_id') }}
),

experiments as (
    select distinct project, experiment_id from {{ ref('stg_cumulative_exposures') }}
    {{ union_distinct() }}
    select project, experiment_id from last_followings
    {{ union_distinct() }}
    select project, experiment_id from named
),

final as (
    select
        experiments.project,
        experiments.experiment_id,
        recording_projects.project is null
            or coalesce(last_followings.recency = 1, false)
            or named.experiment_id is not null as is_followed,
        last_followings.last_followed_at,
        cast(last_followings.last_followed_at as date) as last_followed_date
    from experiments
    left join recording_projects
        on recording_projects.project = experiments.project
    {{ left_joins('experiments', 'experiment_id', 'last_followings', 'named') }}
)

select * from final
