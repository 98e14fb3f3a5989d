-- grain: one row per stale or at-risk gate: the value its checks can be replaced by, or why a person must decide; key: project, gate_id
{#
From `stale_gates` and `stg_cleanup_branches`. `gatehouse cleanup` reads it and rewrites a gate's checks only
where `is_decided`; the report and the worklist show, per gate, its cleanup branch or why it needs a person.

The value and the reason are `gate_lifecycle`'s (its `cleanup_value` and `decision`): a value only at stage
`ready: remove from code`, where the gate has given one answer to every user for `ready_after_days`, nothing in the
console references it, and the console's own stale reason does not contradict it. This view adds the branches.

| column | meaning |
|---|---|
| `project`, `gate_id`, `gate_name`, `staleness`, `type_reason`, `type_reason_source`, `gate_type`, `status`, `is_enabled`, `rollout_state`, `rule_count`, `checks_per_hour`, `owner_name`, `contact_name`, `referencing_holdout_ids`, `referencing_config_ids`, `referencing_gate_ids`, `code_reference_count` | from `stale_gates` |
| `days_untouched` | days since the later of creation and last change |
| `stage`, `cleanup_value`, `decision` | from `gate_lifecycle`: `cleanup_value` (`true` or `false`, what every check of the gate returns) only at `ready: remove from code`; `decision` says why that value and how long it held, or why not |
| `is_decided` | `cleanup_value` is not null |
| `cleanup_branches` | the branches `gatehouse cleanup` made for it, `repository: branch`, by repository; null when none |
| `cleanup_state` | `branch made`, `ready` (decided, no branch yet), `needs a person`, `nothing to rewrite` (its code is gone, or never held it: the console's part is left), or `not ready yet` (approaching) |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(stale_gates='stale_gates', branches='stg_cleanup_branches') }},

gate_branches as (
    -- the newest branch per repository: a branch made again replaces the one before it
    select
        project,
        gate_id,
        {% call string_agg("'; '", "repository") %}repository || ': ' || branch{% endcall %} as cleanup_branches
    from branches
    where is_latest
    group by project, gate_id
),

final as (
    select
        stale_gates.project,
        stale_gates.gate_id,
        gate_name,
        staleness,
        type_reason,
        type_reason_source,
        gate_type,
        status,
        is_enabled,
        rollout_state,
        rule_count,
        checks_per_hour,
        least(days_since_created, days_since_modified) as days_untouched,
        owner_name,
        contact_name,
        referencing_holdout_ids,
        referencing_config_ids,
        referencing_gate_ids,
        code_reference_count,
        stage,
        cleanup_value,
        cleanup_value is not null as is_decided,
        decision,
        gate_branches.cleanup_branches,
        case
            when stage = 'approaching' then 'not ready yet'
            when stage in ('ready: archive in the console', 'removed from code') then 'nothing to rewrite'
            when cleanup_value is null then 'needs a person'
            when gate_branches.cleanup_branches is not null then 'branch made'
            else 'ready'
        end as cleanup_state
    from stale_gates
    left join gate_branches
        {{ join_on('gate_branches', 'stale_gates', 'gate_id') }}
)

select * from final
