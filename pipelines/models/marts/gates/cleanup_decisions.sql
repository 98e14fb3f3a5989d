-- grain: one row per stale or at-risk gate: the value its checks can be replaced by, or why a person must decide; key: project, gate_id
{#
From `stale_gates` and `stg_cleanup_branches`. `gatehouse cleanup` reads it and rewrites a gate's checks only
where `is_decided`; the report and the worklist show, per gate, its cleanup branch or why it needs a person.

The value is certain only where the console gives every user the same answer, and the console's own reason does
not say otherwise. In this order:

1. `approaching`: not stale yet.
2. Referenced by holdouts, configs or gates: an experiment's analysis or another flag still reads it.
3. `status = 'Launched'`: every user passes, `true`. `Disabled` (or `is_enabled` false): every user fails, `false`.
4. The rules: `rollout_state` `100%` (every rule passes 100% and one is an everyone rule) is `true`; `0%` and
   `no rules` (every user fails) are `false`.
5. Otherwise the rules pass some users only: `forgotten` when the console says so (STALE_PROBABLY_FORGOTTEN);
   `still checked while its rules vary` when it is checked at run time (the checks seen so far, STALE_ALL_TRUE
   for one, say nothing of the users the rules leave out); `partial rollout` when it is not.

A value from 3 or 4 that contradicts the console's reason (launched or all true against `false`; unlaunched, all
false or no rules against `true`) is not decided either: the rules changed since the console judged, or the two
read differently, and a person looks.

| column | meaning |
|---|---|
| `project`, `gate_id`, `gate_name`, `staleness`, `type_reason`, `type_reason_source`, `gate_type`, `status`, `is_enabled`, `rollout_state`, `rule_count`, `checks_per_hour`, `owner_name`, `contact_name`, `referencing_holdout_ids`, `referencing_config_ids`, `referencing_gate_ids`, `code_reference_count` | from `stale_gates` |
| `days_untouched` | days since the later of creation and last change |
| `cleanup_value` | `true` or `false`: what every check of the gate returns; null when not decided |
| `is_decided` | `cleanup_value` is not null |
| `decision` | why that value (`launched in the console: every user passes`), or why a person must decide (`partial rollout: its rules pass some users only`) |
| `cleanup_branches` | the branches `gatehouse cleanup` made for it, `repository: branch`, by repository; null when none |
| `cleanup_state` | `branch made`, `ready` (decided, no branch yet), `needs a person`, or `not stale yet` (approaching) |
#}
{% from 'macros/joins.sql' import join_on %}
with stale_gates as (
    select * from {{ ref('stale_gates') }}
),

branches as (
    select * from {{ ref('stg_cleanup_branches') }}
),

gate_branches as (
    -- the newest branch per repository: a branch made again replaces the one before it
    select
        project,
        gate_id,
        string_agg(repository || ': ' || branch, '; ' order by repository) as cleanup_branches
    from branches
    where is_latest
    group by project, gate_id
),

valued as (
    select
        stale_gates.*,
        least(days_since_created, days_since_modified) as days_untouched,
        case
            when status = 'Launched' then true
            when status = 'Disabled' or not coalesce(is_enabled, true) then false
            when rollout_state = '100%' then true
            when rollout_state in ('0%', 'no rules') then false
        end as rules_value,
        case
            when status = 'Launched' then 'launched in the console: every user passes'
            when status = 'Disabled' then 'disabled in the console: every user fails'
            when not coalesce(is_enabled, true) then 'turned off in the console: every user fails'
            when rollout_state = '100%' then 'every rule passes 100% and one is for everyone: every user passes'
            when rollout_state = '0%' then 'every rule passes 0%: every user fails'
            when rollout_state = 'no rules' then 'no rules: every user fails'
        end as rules_reason,
        case
            when type_reason in ('STALE_PROBABLY_LAUNCHED', 'STALE_ALL_TRUE') then true
            when type_reason in ('STALE_PROBABLY_UNLAUNCHED', 'STALE_ALL_FALSE', 'STALE_NO_RULES') then false
        end as reason_value
    from stale_gates
),

decided as (
    select
        valued.*,
        case
            when staleness = 'approaching' then null
            when referencing_holdout_ids is not null
                or referencing_config_ids is not null
                or referencing_gate_ids is not null then null
            when rules_value is null then null
            when reason_value is not null and reason_value <> rules_value then null
            else rules_value
        end as cleanup_value,
        case
            when staleness = 'approaching'
                then 'not stale yet: stale in ' || cast(days_until_stale as varchar) || ' days'
            when referencing_holdout_ids is not null
                then 'referenced by holdouts ' || referencing_holdout_ids || ': an experiment''s analysis still reads it'
            when referencing_config_ids is not null
                then 'referenced by configs ' || referencing_config_ids || ': a config still reads it'
            when referencing_gate_ids is not null
                then 'referenced by gates ' || referencing_gate_ids || ': another gate still reads it'
            when rules_value is null and type_reason = 'STALE_PROBABLY_FORGOTTEN'
                then 'forgotten: partly rolled out for a long time; finish or roll back the rollout first'
            when rules_value is null and coalesce(checks_per_hour, 0) > 0
                then 'still checked while its rules vary: its rules pass some users only'
            when rules_value is null
                then 'partial rollout: its rules pass some users only'
            when reason_value is not null and reason_value <> rules_value
                then 'the console''s reason (' || type_reason || ') and its rules (' || rules_reason || ') disagree'
            else rules_reason
        end as decision
    from valued
),

final as (
    select
        decided.project,
        decided.gate_id,
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
        days_untouched,
        owner_name,
        contact_name,
        referencing_holdout_ids,
        referencing_config_ids,
        referencing_gate_ids,
        code_reference_count,
        cleanup_value,
        cleanup_value is not null as is_decided,
        decision,
        gate_branches.cleanup_branches,
        case
            when staleness = 'approaching' then 'not stale yet'
            when cleanup_value is null then 'needs a person'
            when gate_branches.cleanup_branches is not null then 'branch made'
            else 'ready'
        end as cleanup_state
    from decided
    left join gate_branches
        {{ join_on('gate_branches', 'decided', 'gate_id') }}
)

select * from final
