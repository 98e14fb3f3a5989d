-- grain: one row per owner of stale or at-risk gates, a cleanup worklist; key: project, owner_key
{#
From `stale_gates`.

| column | meaning |
|---|---|
| `project` | the console |
| `owner_key` | `owner_id`, else `owner_name`, else `(no owner)` |
| `owner_name`, `owner_email` | the owner's |
| `teams` | distinct teams of those gates, comma-separated |
| `gate_count`, `marked_stale_count`, `meets_stale_rules_count`, `approaching_count` | gates, in total and by `staleness` |
| `max_days_since_modified` | the longest-untouched gate |
| `checks_per_hour` | sum over the gates (how much traffic the cleanup touches) |
| `gate_ids` | the gates, marked first, then longest untouched first |
#}
with stale_gates as (
    select * from {{ ref('stale_gates') }}
),

owned as (
    select
        coalesce(owner_id, owner_name, '(no owner)') as owner_key,
        stale_gates.*
    from stale_gates
),

final as (
    select
        project,
        owner_key,
        max(owner_name) as owner_name,
        max(owner_email) as owner_email,
        string_agg(distinct team, ', ' order by team) as teams,
        count(*) as gate_count,
        count(case when staleness = 'marked stale' then 1 end) as marked_stale_count,
        count(case when staleness = 'meets stale rules' then 1 end) as meets_stale_rules_count,
        count(case when staleness = 'approaching' then 1 end) as approaching_count,
        max(days_since_modified) as max_days_since_modified,
        sum(coalesce(checks_per_hour, 0)) as checks_per_hour,
        string_agg(gate_id, ', ' order by staleness_rank, days_since_modified desc, gate_id) as gate_ids
    from owned
    group by project, owner_key
)

select * from final
