-- grain: one row per live gate the service marks STALE, that meets or approaches its stale rules, or that gate_lifecycle puts on the worklist, unless snoozed; key: project, gate_id
{#
From `gate_staleness` (the console's stale rules, below) and `gate_lifecycle` (the one judgement: stage and
action).

The console's rules (`shared/spec/gap-decisions.md`): permanent and archived gates are never stale, nor a gate
created or modified within the last 30 days (`stale_after_days`), nor one referenced by another gate, an experiment
or a config. Otherwise it is stale when it had no checks in the window, or when it is still checked but was first
checked at least 30 days ago. The console does not expose a gate's first check, and a gate cannot be checked before
it exists, so a checked gate untouched for the window is taken as meeting the rule. Experiments that reference gates
are not exposed either: only gates and configs exempt a gate here; holdout references are listed (and change the
recommended action) but do not exempt.

| column | meaning |
|---|---|
| `project` | the console |
| `gate_id`, `gate_name`, `gate_type`, `status`, `is_enabled`, `owner_id`, `owner_name`, `owner_email`, `owner_type`, `creator_name`, `team`, `days_since_modified`, `days_since_created`, `checks_per_hour`, `rule_count`, `rollout_state`, `referencing_holdout_ids`, `referencing_config_ids`, `referencing_gate_ids`, `last_modifier_name`, `last_modified_at`, `created_at` | from `current_gates` |
| `is_server_key_owner` | the owner is not a person: `owner_type` other than `USER` (`SDK_KEY`: made through the console API with a server key, the owner named after the key, such as `CONSOLE API`) |
| `contact_name` | who to ask: the owner; for a server key, the last person who changed the gate, else the one who made it (null when the key did both) |
| `staleness` | `marked stale`: the console says `type = STALE`; `meets stale rules`: not marked yet, but the rules above hold now; `approaching`: they will hold within `stale_warning_days` |
| `staleness_rank` | 1, 2, 3 in that order (for sorting) |
| `type_reason` | the console's `typeReason` when it marked the gate; otherwise the reason its rules give, in its order: `STALE_PROBABLY_DEAD_CHECK` (no checks: `checks_per_hour` 0 or null), `STALE_PROBABLY_LAUNCHED` (status Launched, or an everyone rule at 100%), `STALE_PROBABLY_UNLAUNCHED` (disabled, or an everyone rule at 0%, or every rule at 0%), `STALE_NO_RULES`, `STALE_PROBABLY_FORGOTTEN` (partly rolled out). `STALE_ALL_TRUE`, `STALE_ALL_FALSE` and `STALE_EMPTY_CHECKS` need check results the console does not expose: only the console gives them |
| `type_reason_source` | `service` or `predicted` |
| `days_until_stale` | for `approaching` gates: `stale_after_days` minus days since the later of creation and last change |
| `code_reference_count` | references in code (`int_gate_code_lines`); null until some repository was scanned |
| `code_locations` | the first three lines that reference it, `repository:path:line`, by repository, path, line |
| `stage`, `stage_rank`, `cleanup_value`, `decision`, `code_owners`, `recommended_action` | from `gate_lifecycle` (`recommended_action` is its `action`): the one judgement every list, summary, alert and cleanup gives; `staleness` above is the console's rules alone, evidence beside it |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(gates='gate_staleness', lifecycle='gate_lifecycle', code_lines='int_gate_code_lines') }},

code_scans as (
    select * from {{ ref('stg_code_reference_scans') }}
),

code_reference_counts as (
    -- a repository's code is no project's: a reference counts for the gate of that id in every project
    select
        gate_id,
        cast(sum(reference_count) as bigint) as code_reference_count
    from code_lines
    group by gate_id
),

ranked_code_locations as (
    select
        gate_id,
        location,
        row_number() over (partition by gate_id order by repository, path, line) as location_rank
    from code_lines
),

first_code_locations as (
    -- the first few, for a glance; analytics.cleanup_worklist lists them all
    select
        gate_id,
        {% call string_agg("', '", "location_rank") %}location{% endcall %} as code_locations
    from ranked_code_locations
    where location_rank <= 3
    group by gate_id
),

reasoned as (
    -- the console's stale gates, and those the gate's history and code put on the worklist before the console does
    select gates.*
    from gates
    left join lifecycle
        {{ join_on('lifecycle', 'gates', 'gate_id') }}
    where (gates.staleness is not null and not coalesce(lifecycle.is_snoozed, false)) or coalesce(lifecycle.on_worklist, false)
),

console_answered as (
    select
        reasoned.project,
        reasoned.gate_id,
        gate_name,
        staleness,
        case staleness
            when 'marked stale' then 1
            when 'meets stale rules' then 2
            when 'approaching' then 3
            else 4
        end as staleness_rank,
        stale_reason as type_reason,
        type_reason_source,
        gate_type,
        status,
        is_enabled,
        owner_id,
        owner_name,
        owner_email,
        owner_type,
        is_server_key_owner,
        creator_name,
        -- a server key is no one to ask: the last person who changed the gate is, else the one who made it
        case
            when is_server_key_owner then coalesce(nullif(last_modifier_name, owner_name), nullif(creator_name, owner_name))
            else coalesce(owner_name, owner_email)
        end as contact_name,
        team,
        days_since_modified,
        days_since_created,
        case
            when staleness = 'approaching' then cast(stale_after_days - days_since_touched as integer)
        end as days_until_stale,
        checks_per_hour,
        rule_count,
        rollout_state,
        referencing_holdout_ids,
        referencing_config_ids,
        referencing_gate_ids,
        last_modifier_name,
        last_modified_at,
        created_at,
        -- null until some repository was scanned: "no reference" is only known after a scan
        case
            when exists (select 1 from code_scans) then coalesce(code_reference_counts.code_reference_count, 0)
        end as code_reference_count,
        first_code_locations.code_locations
    from reasoned
    left join code_reference_counts
        on code_reference_counts.gate_id = reasoned.gate_id
    left join first_code_locations
        on first_code_locations.gate_id = reasoned.gate_id
),

final as (
    select
        console_answered.*,
        lifecycle.stage,
        lifecycle.stage_rank,
        lifecycle.cleanup_value,
        lifecycle.decision,
        lifecycle.code_owners,
        lifecycle.action as recommended_action
    from console_answered
    inner join lifecycle
        {{ join_on('lifecycle', 'console_answered', 'gate_id') }}
)

select * from final
