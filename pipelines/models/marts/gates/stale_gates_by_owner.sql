-- grain: one row per owner of stale or at-risk gates, a cleanup worklist; key: project, owner_key
{#
From `stale_gates`.

| column | meaning |
|---|---|
| `project` | the console |
| `owner_key` | `owner_id`, else `owner_name`, else `(no owner)`; `(server keys)` for every gate a server key owns |
| `owner_name`, `owner_email` | the owner's (the keys' names for `(server keys)`) |
| `is_server_key_owner` | the owner is a server key, not a person (see `stale_gates`) |
| `contacts` | for `(server keys)`: the people to ask (each gate's `contact_name`), most gates first, with their counts (`Ana Ruiz (12), Li Wei (3)`); null for a person |
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
        -- server keys are no one's: their gates make one group, which names the people to ask
        case
            when is_server_key_owner then '(server keys)'
            else coalesce(owner_id, owner_name, '(no owner)')
        end as owner_key,
        stale_gates.*
    from stale_gates
),

contact_counts as (
    select
        project,
        owner_key,
        contact_name,
        count(*) as gate_count
    from owned
    where is_server_key_owner and contact_name is not null
    group by project, owner_key, contact_name
),

contacts as (
    select
        project,
        owner_key,
        {% call string_agg("', '", "gate_count desc, contact_name") %}contact_name || ' (' || cast(gate_count as {{ string_type() }}) || ')'{% endcall %} as contacts
    from contact_counts
    group by project, owner_key
),

final as (
    select
        project,
        owner_key,
        {% call string_agg("', '", "owner_name") %}distinct owner_name{% endcall %} as owner_name,
        max(owner_email) as owner_email,
        {{ bool_or('is_server_key_owner') }} as is_server_key_owner,
        max(contacts.contacts) as contacts,
        {% call string_agg("', '", "team") %}distinct team{% endcall %} as teams,
        count(*) as gate_count,
        count(case when staleness = 'marked stale' then 1 end) as marked_stale_count,
        count(case when staleness = 'meets stale rules' then 1 end) as meets_stale_rules_count,
        count(case when staleness = 'approaching' then 1 end) as approaching_count,
        max(days_since_modified) as max_days_since_modified,
        sum(coalesce(checks_per_hour, 0)) as checks_per_hour,
        {% call string_agg("', '", "staleness_rank, days_since_modified desc, gate_id") %}gate_id{% endcall %} as gate_ids
    from owned
    left join contacts
        using (project, owner_key)
    group by project, owner_key
)

select * from final
