-- grain: one row per live gate, with what the console's stale rules say of it today; key: project, gate_id
{#
From `current_gates` and `view_parameters`: the console's rules (`shared/spec/gap-decisions.md`), read from today's
state alone. `stale_gates` lists the gates they name; `gate_lifecycle` weighs them with the gate's history and its
code.

Permanent and archived gates are never stale, nor a gate created or modified within the last `stale_after_days`,
nor one referenced by another gate or a config. Otherwise it is stale when it had no checks in the window, or
when it is still checked but was first checked at least `stale_after_days` ago (the console does not expose a
gate's first check; a gate cannot be checked before it exists, so a checked gate untouched for the window is taken
as meeting the rule).

| column | meaning |
|---|---|
| `project`, `gate_id`, `gate_name`, `description`, `id_type`, `status`, `gate_type`, `type_reason`, `is_enabled`, `checks_per_hour`, `team`, `owner_id`, `owner_name`, `owner_type`, `owner_email`, `creator_name`, `created_at`, `last_modifier_name`, `last_modified_at`, `version`, `days_since_created`, `days_since_modified`, `rule_count`, `min_pass_percentage`, `max_pass_percentage`, `has_everyone_rule`, `has_everyone_rule_at_100`, `has_everyone_rule_at_0`, `rollout_state`, `answer`, `answer_reason`, `holdout_ids`, `referencing_gate_ids`, `referencing_config_ids`, `referencing_holdout_ids`, `referenced_by_count`, `version_seen_at`, `gate_version_id` | from `current_gates` |
| `is_exempt` | permanent or archived |
| `is_depended_on` | another gate or a config references it |
| `days_since_touched` | days since the later of creation and last change |
| `is_checked` | `checks_per_hour` above 0 |
| `is_server_key_owner` | the owner is not a person: `owner_type` other than `USER` |
| `stale_after_days`, `stale_warning_days` | the view parameters |
| `staleness` | `marked stale` (the console says `type = STALE`), `meets stale rules`, `approaching` (within `stale_warning_days`), or null |
| `predicted_type_reason` | the reason the rules give, in the console's order (see `stale_gates.type_reason`) |
| `stale_reason`, `type_reason_source` | the console's `typeReason` when it marked the gate (`service`), else `predicted_type_reason` (`predicted`) |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(gates='current_gates') }},

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

final as (
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
)

select * from final
