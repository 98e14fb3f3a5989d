-- grain: one row per live gate the service marks STALE or that meets or approaches its stale rules; key: project, gate_id
{#
From `current_gates` and `view_parameters`.

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
| `code_reference_count` | references in code (`stg_code_references`, gates only); null until some repository was scanned |
| `code_locations` | the first three lines that reference it, `repository:path:line`, by repository, path, line |
| `console_action` | what the console's state alone says: referenced by anything: `ask the owner: still referenced by holdouts / configs / gates`; launched or all true: `remove the flag and keep the launched path`; unlaunched, all false or no rules (everyone fails): `remove the flag and the dead code path`; dead check: `archive the gate: nothing checks it`; forgotten: `ask the owner: finish or roll back the partial rollout`; empty checks: `ask the owner: its checks return no value` |
| `recommended_action` | the one answer every list, summary and alert gives: `console_action` until a repository is scanned, and while holdouts, configs or gates reference it; then, referenced in code: `remove the flag in these files and keep the launched path` (launched, all true), `... and delete the dead code path` (unlaunched, all false, no rules), `remove the flag in these files (nothing checks it at run time), then archive it in the console` (dead check), `ask the owner: finish or roll back the partial rollout, then remove the flag in these files` (forgotten); referenced nowhere and never checked: `archive it in the console: no code references it and nothing checks it`; referenced nowhere but checked: `find what checks it: checked at run time but referenced in no scanned repository` |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{#
What to do about a stale gate, by its stale reason: in the console (`console_action`), and in the files too once
a scan found code that references the gate (`recommended_action`; a reason without one there gives the console
action, then the files). A reason not listed is the owner's to answer.
#}
{% set reason_actions = [
    (["STALE_PROBABLY_LAUNCHED", "STALE_ALL_TRUE"],
        "remove the flag and keep the launched path",
        "remove the flag in these files and keep the launched path"),
    (["STALE_PROBABLY_UNLAUNCHED", "STALE_ALL_FALSE", "STALE_NO_RULES"],
        "remove the flag and the dead code path",
        "remove the flag in these files and delete the dead code path"),
    (["STALE_PROBABLY_DEAD_CHECK"],
        "archive the gate: nothing checks it",
        "remove the flag in these files (nothing checks it at run time), then archive it in the console"),
    (["STALE_PROBABLY_FORGOTTEN"],
        "ask the owner: finish or roll back the partial rollout",
        "ask the owner: finish or roll back the partial rollout, then remove the flag in these files"),
    (["STALE_EMPTY_CHECKS"],
        "ask the owner: its checks return no value",
        none),
] %}
with gates as (
    select * from {{ ref('current_gates') }}
),

code_references as (
    select * from {{ ref('stg_code_references') }}
    where entity_type = 'gate'
),

code_scans as (
    select * from {{ ref('stg_code_reference_scans') }}
),

code_reference_counts as (
    -- a repository's code is no project's: a reference counts for the gate of that id in every project
    select
        entity_id as gate_id,
        count(*) as code_reference_count
    from code_references
    group by entity_id
),

code_lines as (
    select distinct
        entity_id,
        repository,
        path,
        line,
        location
    from code_references
),

ranked_code_locations as (
    select
        entity_id,
        location,
        row_number() over (partition by entity_id order by repository, path, line) as location_rank
    from code_lines
),

first_code_locations as (
    -- the first few, for a glance; analytics.cleanup_worklist lists them all
    select
        entity_id as gate_id,
        string_agg(location, ', ' order by location_rank) as code_locations
    from ranked_code_locations
    where location_rank <= 3
    group by entity_id
),

parameters as (
    {{ view_parameters('stale_after_days', 'stale_warning_days') }}
),

assessed as (
    select
        gates.*,
        -- the service never marks permanent or archived gates, nor one another gate or a config depends on
        gates.gate_type = 'PERMANENT' or gates.status = 'Archived' as is_exempt,
        gates.referencing_gate_ids is not null or gates.referencing_config_ids is not null as is_depended_on,
        -- "created or modified within the window" keeps a gate fresh: the later of the two counts
        least(gates.days_since_created, gates.days_since_modified) as days_since_touched,
        coalesce(gates.checks_per_hour, 0) > 0 as is_checked,
        coalesce(gates.owner_type <> 'USER', false) as is_server_key_owner,
        parameters.stale_after_days,
        parameters.stale_warning_days
    from gates
    cross join parameters
),

classified as (
    select
        assessed.*,
        case
            when gate_type = 'STALE' then 'marked stale'
            when is_exempt or is_depended_on then null
            when days_since_touched >= stale_after_days then 'meets stale rules'
            when days_since_touched >= stale_after_days - stale_warning_days then 'approaching'
        end as staleness,
        -- the service's reasons in its own order; STALE_ALL_TRUE / _ALL_FALSE / _EMPTY_CHECKS need check
        -- results the console does not expose, so only the service can give them
        case
            when not is_checked then 'STALE_PROBABLY_DEAD_CHECK'
            when status = 'Launched' or has_everyone_rule_at_100 then 'STALE_PROBABLY_LAUNCHED'
            when not coalesce(is_enabled, true) or status = 'Disabled' or has_everyone_rule_at_0 or rollout_state = '0%'
                then 'STALE_PROBABLY_UNLAUNCHED'
            when rule_count = 0 then 'STALE_NO_RULES'
            else 'STALE_PROBABLY_FORGOTTEN'
        end as predicted_type_reason
    from assessed
),

reasoned as (
    select
        classified.*,
        case
            when gate_type = 'STALE' and type_reason like 'STALE%' then type_reason
            else predicted_type_reason
        end as stale_reason,
        case
            when gate_type = 'STALE' and type_reason like 'STALE%' then 'service'
            else 'predicted'
        end as type_reason_source
    from classified
    where staleness is not null
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
            else 3
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
        case
            when referenced_by_count > 0 then 'ask the owner: still referenced by ' || concat_ws(
                ' and ',
                case when referencing_holdout_ids is not null then 'holdouts' end,
                case when referencing_config_ids is not null then 'configs' end,
                case when referencing_gate_ids is not null then 'gates' end
            )
{% for reasons, console_action, _ in reason_actions %}
            when stale_reason in ('{{ reasons | join("', '") }}')
                then '{{ console_action }}'
{% endfor %}
            else 'ask the owner'
        end as console_action,
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
    -- The one answer for the gate, read by the worklist, the summary, the alerts and the reports: once a
    -- repository was scanned, what the code holds decides with the console (archiving a gate that code still
    -- checks turns it off for everyone).
    select
        console_answered.*,
        case
            when code_reference_count is null then console_action
            when console_action like 'ask the owner: still referenced by%' then console_action
            when code_reference_count > 0 then
                case
{% for reasons, _, code_action in reason_actions if code_action %}
                    when type_reason in ('{{ reasons | join("', '") }}')
                        then '{{ code_action }}'
{% endfor %}
                    else console_action || ', then remove the flag in these files'
                end
            when coalesce(checks_per_hour, 0) = 0
                then 'archive it in the console: no code references it and nothing checks it'
            else 'find what checks it: checked at run time but referenced in no scanned repository'
        end as recommended_action
    from console_answered
)

select * from final
