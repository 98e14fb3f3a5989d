-- grain: one row per live gate, with its rollout and who references it; key: project, gate_id
{#
From `stg_gates`, its current version in `int_entity_versions` (rule count, holdouts), its rollout in
`int_gate_answers`, `gate_references` and `as_of`.

| column | meaning |
|---|---|
| `project` | the console |
| `gate_id`, `gate_name`, `description`, `id_type`, `status`, `gate_type`, `type_reason`, `is_enabled`, `checks_per_hour`, `team`, `owner_id`, `owner_name`, `owner_type`, `owner_email`, `creator_name`, `created_at`, `last_modifier_name`, `last_modified_at`, `version` | as in `stg_gates` |
| `days_since_created`, `days_since_modified` | whole days (24 h) from `created_at` / `last_modified_at` to `as_of.as_of_at` |
| `rule_count` | rules of the current version |
| `min_pass_percentage`, `max_pass_percentage`, `has_everyone_rule`, `has_everyone_rule_at_100`, `has_everyone_rule_at_0`, `rollout_state`, `answer`, `answer_reason` | of the current version, from `int_gate_answers` |
| `holdout_ids` | the gate's own `holdoutIDs`, comma-separated |
| `referencing_gate_ids`, `referencing_config_ids`, `referencing_holdout_ids` | from `gate_references`, comma-separated; null when none |
| `referenced_by_count` | rows in `gate_references` for the gate |
| `version_seen_at` | when gatehouse first loaded this version (`valid_from`) |
| `gate_version_id` | the current version's row |
#}
{% from 'macros/entity_kinds.sql' import days_since_changes %}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(gates='stg_gates', gate_references='gate_references', as_of='as_of') }},

versions as (
    select * from {{ ref('int_entity_versions') }}
    where entity_type = 'gate' and is_current
),

answers as (
    select * from {{ ref('int_gate_answers') }}
    where is_current
),

reference_lists as (
    select
        project,
        referenced_gate_id,
        {% call string_agg("', '", "referrer_id") %}case when referrer_kind = 'gate' then referrer_id end{% endcall %} as referencing_gate_ids,
        {% call string_agg("', '", "referrer_id") %}case when referrer_kind = 'dynamic_config' then referrer_id end{% endcall %} as referencing_config_ids,
        {% call string_agg("', '", "referrer_id") %}case when referrer_kind = 'holdout' then referrer_id end{% endcall %} as referencing_holdout_ids,
        count(*) as referenced_by_count
    from gate_references
    group by project, referenced_gate_id
),

final as (
    select
        gates.project,
        gates.gate_id,
        gates.gate_name,
        gates.description,
        gates.id_type,
        gates.status,
        gates.gate_type,
        gates.type_reason,
        gates.is_enabled,
        gates.checks_per_hour,
        gates.team,
        gates.owner_id,
        gates.owner_name,
        gates.owner_type,
        gates.owner_email,
        gates.creator_name,
        gates.created_at,
        gates.last_modifier_name,
        gates.last_modified_at,
        gates.version,
        {{ days_since_changes('gates') }},
        versions.rule_count,
        answers.min_pass_percentage,
        answers.max_pass_percentage,
        answers.has_everyone_rule,
        answers.has_everyone_rule_at_100,
        answers.has_everyone_rule_at_0,
        answers.rollout_state,
        answers.answer,
        answers.answer_reason,
        versions.holdout_ids,
        reference_lists.referencing_gate_ids,
        reference_lists.referencing_config_ids,
        reference_lists.referencing_holdout_ids,
        coalesce(reference_lists.referenced_by_count, 0) as referenced_by_count,
        gates.valid_from as version_seen_at,
        gates.gate_version_id
    from gates
    -- outer joins kept as inner ones by a filter PostgreSQL cannot see through (the same rows): it sizes an inner join
    -- on (project, key) or to the one-row-a-project `as_of` at one row, then rescans the answers once per gate
    left join versions
        {{ join_on('versions', 'gates', 'version_id = gate_version_id') }}
    left join as_of
        on as_of.project = gates.project
    left join answers
        {{ join_on('answers', 'gates', 'gate_version_id') }}
    left join reference_lists
        {{ join_on('reference_lists', 'gates', 'referenced_gate_id = gate_id') }}
    where coalesce(versions.version_id is not null and as_of.project is not null and answers.gate_version_id is not null, false)
)

select * from final
