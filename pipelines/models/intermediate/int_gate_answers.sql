-- grain: one row per version of a gate, the whole scd2 history: the answer that version gives every user, when it gives one; key: project, gate_version_id
{#
From `stg_gate_versions` and `int_entity_rules`. The one place that reads a gate's answer from its state: the
`current_gates` rollout and `gate_lifecycle`'s history both read it.

A user is checked against the rules in order; the first rule whose conditions match decides, passing the
rule's percentage of users; a user no rule matches fails. So every user gets one answer only when the gate is
launched (all pass), disabled or turned off (all fail), every rule passes 0% (all fail), it has no rules (all
fail), or every rule passes 100% and one is for everyone (all pass). Any other rollout answers some users `true`
and others `false`.

| column | meaning |
|---|---|
| `project`, `gate_id`, `gate_version_id`, `status`, `is_enabled`, `gate_type`, `type_reason`, `checks_per_hour`, `last_modified_at`, `valid_from`, `valid_to`, `is_current`, `load_id` | as in `stg_gate_versions` |
| `rule_count` | rules of this version |
| `min_pass_percentage`, `max_pass_percentage` | over its rules; null without rules |
| `has_everyone_rule` | a rule whose conditions are all `public` (the console's Everyone condition), or that has none |
| `has_everyone_rule_at_100`, `has_everyone_rule_at_0` | such a rule passes 100% / 0% |
| `rollout_state` | `no rules`; `0%` (every rule passes 0%); `100%` (every rule passes 100% and one is an everyone rule: the console's `rolloutRate=100`); `partial` otherwise |
| `answer` | `true` or `false`: what every check of the gate returns in this version; null when users get different answers |
| `answer_reason` | why, in words (`disabled in the console: every user fails`); for a null answer, `its rules pass some users only` |
| `answer_fingerprint` | status, enabled and each rule's position, id, pass percentage and audience, as text: two versions with the same one answer alike (a change of description, owner or checks per hour leaves it) |
#}
{% from 'macros/joins.sql' import join_on %}
with versions as (
    select * from {{ ref('stg_gate_versions') }}
),

gate_rules as (
    select * from {{ ref('int_entity_rules') }}
    where entity_type = 'gate'
),

rule_summary as (
    select
        project,
        version_id,
        count(*) as rule_count,
        min(pass_percentage) as min_pass_percentage,
        max(pass_percentage) as max_pass_percentage,
        count(case when is_everyone_rule then 1 end) > 0 as has_everyone_rule,
        count(case when is_everyone_rule and pass_percentage >= 100 then 1 end) > 0 as has_everyone_rule_at_100,
        count(case when is_everyone_rule and pass_percentage <= 0 then 1 end) > 0 as has_everyone_rule_at_0,
        {% call string_agg("';'", "rule_position") %}
            cast(rule_position as {{ string_type() }}) || ':' || coalesce(rule_id, '') || ':'
            -- in thousandths of a percent: a double's text differs between warehouses
            || coalesce(cast(cast(round(pass_percentage * 1000) as bigint) as {{ string_type() }}), '')
            || case when is_everyone_rule then ':everyone' else ':targeted' end
        {% endcall %} as rules_fingerprint
    from gate_rules
    group by project, version_id
),

rolled_out as (
    select
        versions.project,
        versions.gate_id,
        versions.gate_version_id,
        versions.status,
        versions.is_enabled,
        versions.gate_type,
        versions.type_reason,
        versions.checks_per_hour,
        versions.last_modified_at,
        versions.valid_from,
        versions.valid_to,
        versions.is_current,
        versions.load_id,
        coalesce(rule_summary.rule_count, 0) as rule_count,
        rule_summary.min_pass_percentage,
        rule_summary.max_pass_percentage,
        coalesce(rule_summary.has_everyone_rule, false) as has_everyone_rule,
        coalesce(rule_summary.has_everyone_rule_at_100, false) as has_everyone_rule_at_100,
        coalesce(rule_summary.has_everyone_rule_at_0, false) as has_everyone_rule_at_0,
        case
            when coalesce(rule_summary.rule_count, 0) = 0 then 'no rules'
            when rule_summary.max_pass_percentage <= 0 then '0%'
            when rule_summary.min_pass_percentage >= 100 and rule_summary.has_everyone_rule then '100%'
            else 'partial'
        end as rollout_state,
        coalesce(versions.status, '') || '|' || coalesce(cast(versions.is_enabled as {{ string_type() }}), '') || '|'
        || coalesce(rule_summary.rules_fingerprint, '') as answer_fingerprint
    from versions
    left join rule_summary
        {{ join_on('rule_summary', 'versions', 'version_id = gate_version_id') }}
),

final as (
    select
        project,
        gate_id,
        gate_version_id,
        status,
        is_enabled,
        gate_type,
        type_reason,
        checks_per_hour,
        last_modified_at,
        valid_from,
        valid_to,
        is_current,
        load_id,
        rule_count,
        min_pass_percentage,
        max_pass_percentage,
        has_everyone_rule,
        has_everyone_rule_at_100,
        has_everyone_rule_at_0,
        rollout_state,
        case
            when status = 'Launched' then true
            when status = 'Disabled' or not coalesce(is_enabled, true) then false
            when rollout_state = '100%' then true
            when rollout_state in ('0%', 'no rules') then false
        end as answer,
        case
            when status = 'Launched' then 'launched in the console: every user passes'
            when status = 'Disabled' then 'disabled in the console: every user fails'
            when not coalesce(is_enabled, true) then 'turned off in the console: every user fails'
            when rollout_state = '100%' then 'every rule passes 100% and one is for everyone: every user passes'
            when rollout_state = '0%' then 'every rule passes 0%: every user fails'
            when rollout_state = 'no rules' then 'no rules: every user fails'
            else 'its rules pass some users only'
        end as answer_reason,
        answer_fingerprint
    from rolled_out
)

select * from final
