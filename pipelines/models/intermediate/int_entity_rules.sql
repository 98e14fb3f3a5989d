-- grain: one row per rule of a version of a gate or a dynamic config, every version of both; key: project, entity_type, version_id, rule_row_id
{#
The rules of both kinds in one, from `stg_gate_rules` and `stg_dynamic_config_rules`, with what the marts ask of a
rule: whether everyone may pass it, and its variants.

| column | meaning |
|---|---|
| `project` | the console |
| `entity_type` | `gate` or `dynamic_config` |
| `rule_row_id`, `version_id` | `gate_rule_row_id` / `config_rule_row_id`, and the version it belongs to (`gate_version_id` / `config_version_id`) |
| `rule_position`, `rule_id`, `rule_base_id`, `rule_name`, `pass_percentage` | as in the staging rules |
| `return_value` | a config rule's (JSON as text); null for a gate |
| `is_everyone_rule` | all its conditions are the console's Everyone condition (`public`), or it has none |
| `variant_count` | a config rule's variants; 0 for a gate |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/entity_kinds.sql' import stack_entity_kinds %}
with rules as (
    {{ stack_entity_kinds(
        'rules',
        ['rule_row_id', 'version_id'],
        ['rule_position', 'rule_id', 'rule_base_id', 'rule_name', 'pass_percentage'],
        kind_columns={'return_value': ('dynamic_config', string_type())},
    ) }}
),

conditions as (
    {{ stack_entity_kinds('rule_conditions', ['rule_row_id', 'condition_row_id'], ['condition_type']) }}
),

config_variants as (
    select * from {{ ref('stg_dynamic_config_rule_variants') }}
),

rule_audiences as (
    select
        project,
        entity_type,
        rule_row_id,
        count(case when condition_type <> 'public' then 1 end) as targeted_condition_count
    from conditions
    group by project, entity_type, rule_row_id
),

variant_counts as (
    select
        project,
        config_rule_row_id,
        count(*) as variant_count
    from config_variants
    group by project, config_rule_row_id
),

final as (
    select
        rules.project,
        rules.entity_type,
        rules.rule_row_id,
        rules.version_id,
        rules.rule_position,
        rules.rule_id,
        rules.rule_base_id,
        rules.rule_name,
        rules.pass_percentage,
        rules.return_value,
        coalesce(rule_audiences.targeted_condition_count, 0) = 0 as is_everyone_rule,
        coalesce(variant_counts.variant_count, 0) as variant_count
    from rules
    left join rule_audiences
        {{ join_on('rule_audiences', 'rules', 'entity_type', 'rule_row_id') }}
    left join variant_counts
        {{ join_on('variant_counts', 'rules', 'config_rule_row_id = rule_row_id') }}
        and rules.entity_type = 'dynamic_config'
)

select * from final
