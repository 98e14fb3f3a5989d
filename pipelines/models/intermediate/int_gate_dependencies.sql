-- grain: one row per gate id named by a passes_gate / fails_gate condition in the rules of a live gate or dynamic config; key: project, entity_type, condition_row_id, target_position
{#
What each live gate and config depends on: a rule condition of type `passes_gate` / `fails_gate` names the gates it
checks in its target values. From the staging versions, rules, conditions and target values of both kinds (current
versions only). Read by `gate_references` and `current_dynamic_configs`.

| column | meaning |
|---|---|
| `project` | the console |
| `entity_type`, `entity_id`, `version_id` | the live gate or config and its current version |
| `condition_row_id`, `target_position` | the condition (`gate_condition_row_id` / `config_condition_row_id`) and the target value's place in it |
| `condition_type` | `passes_gate` or `fails_gate` |
| `referenced_gate_id` | the gate it names (existing or not; a gate may name itself) |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/entity_kinds.sql' import stack_entity_kinds %}
with versions as (
    {{ stack_entity_kinds('versions', ['version_id', 'id as entity_id'], ['is_current']) }}
),

rules as (
    {{ stack_entity_kinds('rules', ['rule_row_id', 'version_id']) }}
),

conditions as (
    {{ stack_entity_kinds('rule_conditions', ['rule_row_id', 'condition_row_id'], ['condition_type']) }}
),

targets as (
    {{ stack_entity_kinds('condition_targets', ['condition_row_id'], ['target_position', 'target_value']) }}
),

final as (
    select
        versions.project,
        versions.entity_type,
        versions.entity_id,
        versions.version_id,
        conditions.condition_row_id,
        targets.target_position,
        conditions.condition_type,
        targets.target_value as referenced_gate_id
    from versions
    -- outer joins from the versions, kept as inner ones by a filter PostgreSQL cannot see through (the same rows): it
    -- sizes the few gate conditions joined to their targets at one row and reads every rule once per condition
    left join rules
        {{ join_on('rules', 'versions', 'entity_type', 'version_id') }}
    left join conditions
        {{ join_on('conditions', 'rules', 'entity_type', 'rule_row_id') }}
        and conditions.condition_type in ('passes_gate', 'fails_gate')
    left join targets
        {{ join_on('targets', 'conditions', 'entity_type', 'condition_row_id') }}
    where versions.is_current
        and coalesce(targets.condition_row_id is not null, false)
)

select * from final
