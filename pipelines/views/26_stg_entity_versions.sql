-- grain: one row per version of a gate or a dynamic config, the whole scd2 history of both, with what changed from the version before; key: entity_kind, version_id
with gate_versions as (
    select * from analytics.stg_gate_versions
),

config_versions as (
    select * from analytics.stg_dynamic_config_versions
),

-- gates and dynamic configs have the same shape of history: versions, rules, conditions with target
-- values, holdouts (configs' rules also return values and have variants). One union each, then one
-- change logic for both.
versions as (
    select
        'gate' as entity_kind,
        gate_version_id as version_id,
        gate_id as entity_id,
        gate_name as entity_name,
        description,
        status,
        gate_type,
        type_reason,
        is_enabled,
        checks_per_hour,
        cast(null as varchar) as default_value,
        owner_id,
        team,
        cast(null as varchar) as release_pipeline_id,
        version,
        last_modified_at,
        last_modifier_name,
        valid_from,
        valid_to
    from gate_versions

    union all

    select
        'dynamic_config' as entity_kind,
        config_version_id as version_id,
        config_id as entity_id,
        config_name as entity_name,
        description,
        status,
        cast(null as varchar) as gate_type,
        cast(null as varchar) as type_reason,
        is_enabled,
        cast(null as double) as checks_per_hour,
        default_value,
        owner_id,
        team,
        release_pipeline_id,
        version,
        last_modified_at,
        last_modifier_name,
        valid_from,
        valid_to
    from config_versions
),

rules as (
    select
        gate_version_id as version_id,
        gate_rule_row_id as rule_row_id,
        rule_position,
        rule_id,
        rule_name,
        pass_percentage,
        cast(null as varchar) as return_value
    from analytics.stg_gate_rules

    union all

    select
        config_version_id as version_id,
        config_rule_row_id as rule_row_id,
        rule_position,
        rule_id,
        rule_name,
        pass_percentage,
        return_value
    from analytics.stg_dynamic_config_rules
),

conditions as (
    select
        gate_rule_row_id as rule_row_id,
        gate_condition_row_id as condition_row_id,
        condition_position,
        condition_type,
        operator,
        field
    from analytics.stg_gate_rule_conditions

    union all

    select
        config_rule_row_id as rule_row_id,
        config_condition_row_id as condition_row_id,
        condition_position,
        condition_type,
        operator,
        field
    from analytics.stg_dynamic_config_rule_conditions
),

targets as (
    select
        gate_condition_row_id as condition_row_id,
        target_position,
        target_value
    from analytics.stg_gate_condition_targets

    union all

    select
        config_condition_row_id as condition_row_id,
        target_position,
        target_value
    from analytics.stg_dynamic_config_condition_targets
),

holdouts as (
    select
        gate_version_id as version_id,
        holdout_position,
        holdout_id
    from analytics.stg_gate_holdouts

    union all

    select
        config_version_id as version_id,
        holdout_position,
        holdout_id
    from analytics.stg_dynamic_config_holdouts
),

variants as (
    select * from analytics.stg_dynamic_config_rule_variants
),

condition_targets as (
    select
        condition_row_id,
        string_agg(target_value, '|' order by target_position) as target_values
    from targets
    group by condition_row_id
),

rule_conditions as (
    select
        conditions.rule_row_id,
        string_agg(
            coalesce(conditions.condition_type, '') || '/' || coalesce(conditions.operator, '') || '/'
            || coalesce(conditions.field, '') || '/' || coalesce(condition_targets.target_values, ''),
            ';' order by conditions.condition_position
        ) as conditions_fingerprint
    from conditions
    left join condition_targets
        on condition_targets.condition_row_id = conditions.condition_row_id
    group by conditions.rule_row_id
),

rule_variants as (
    select
        config_rule_row_id as rule_row_id,
        string_agg(
            coalesce(variant_id, '') || ':' || coalesce(cast(pass_percentage as varchar), '') || ':' || coalesce(return_value, ''),
            ';' order by variant_position
        ) as variants_fingerprint
    from variants
    group by config_rule_row_id
),

version_rules as (
    -- what a rule change means here: any rule added, removed, reordered, renamed, re-targeted, re-weighted or
    -- (a config's) returning another value
    select
        rules.version_id,
        count(*) as rule_count,
        string_agg(
            coalesce(rules.rule_id, '') || ':' || coalesce(rules.rule_name, '') || ':'
            || coalesce(cast(rules.pass_percentage as varchar), '') || ':' || coalesce(rules.return_value, '')
            || '[' || coalesce(rule_conditions.conditions_fingerprint, '') || '][' || coalesce(rule_variants.variants_fingerprint, '') || ']',
            ',' order by rules.rule_position
        ) as rules_fingerprint
    from rules
    left join rule_conditions
        on rule_conditions.rule_row_id = rules.rule_row_id
    left join rule_variants
        on rule_variants.rule_row_id = rules.rule_row_id
    group by rules.version_id
),

version_holdouts as (
    select
        version_id,
        string_agg(holdout_id, ',' order by holdout_position) as holdouts_fingerprint
    from holdouts
    group by version_id
),

sequenced as (
    select
        versions.*,
        coalesce(version_rules.rule_count, 0) as rule_count,
        version_rules.rules_fingerprint,
        version_holdouts.holdouts_fingerprint,
        lag(versions.valid_from) over entity_history as previous_valid_from,
        lag(versions.valid_to) over entity_history as previous_valid_to,
        lead(versions.valid_from) over entity_history as next_valid_from,
        lag(versions.entity_name) over entity_history as previous_entity_name,
        lag(versions.description) over entity_history as previous_description,
        lag(versions.status) over entity_history as previous_status,
        lag(versions.gate_type) over entity_history as previous_gate_type,
        lag(versions.type_reason) over entity_history as previous_type_reason,
        lag(versions.is_enabled) over entity_history as previous_is_enabled,
        lag(versions.checks_per_hour) over entity_history as previous_checks_per_hour,
        lag(versions.default_value) over entity_history as previous_default_value,
        lag(versions.owner_id) over entity_history as previous_owner_id,
        lag(versions.team) over entity_history as previous_team,
        lag(versions.release_pipeline_id) over entity_history as previous_release_pipeline_id,
        lag(versions.version) over entity_history as previous_version,
        lag(coalesce(version_rules.rule_count, 0)) over entity_history as previous_rule_count,
        lag(version_rules.rules_fingerprint) over entity_history as previous_rules_fingerprint,
        lag(version_holdouts.holdouts_fingerprint) over entity_history as previous_holdouts_fingerprint
    from versions
    left join version_rules
        on version_rules.version_id = versions.version_id
    left join version_holdouts
        on version_holdouts.version_id = versions.version_id
    window entity_history as (partition by versions.entity_kind, versions.entity_id order by versions.valid_from)
)

select
    entity_kind,
    version_id,
    entity_id,
    entity_name,
    status,
    gate_type,
    type_reason,
    is_enabled,
    checks_per_hour,
    default_value,
    release_pipeline_id,
    owner_id,
    team,
    version,
    rule_count,
    last_modified_at,
    last_modifier_name,
    valid_from,
    valid_to,
    case
        when previous_valid_from is null then 'first seen'
        when previous_valid_to < valid_from then 'restored'
        else 'modified'
    end as change_kind,
    -- the attributes of one kind are null for the other, so they never count as changed there
    case
        when previous_valid_from is not null then coalesce(
            nullif(
                concat_ws(
                    ', ',
                    case when entity_name is distinct from previous_entity_name then 'name' end,
                    case when description is distinct from previous_description then 'description' end,
                    case when status is distinct from previous_status then 'status' end,
                    case when gate_type is distinct from previous_gate_type then 'type' end,
                    case when type_reason is distinct from previous_type_reason then 'type_reason' end,
                    case when is_enabled is distinct from previous_is_enabled then 'is_enabled' end,
                    case when default_value is distinct from previous_default_value then 'default_value' end,
                    case when rules_fingerprint is distinct from previous_rules_fingerprint then 'rules' end,
                    case when holdouts_fingerprint is distinct from previous_holdouts_fingerprint then 'holdouts' end,
                    case when owner_id is distinct from previous_owner_id then 'owner' end,
                    case when team is distinct from previous_team then 'team' end,
                    case when checks_per_hour is distinct from previous_checks_per_hour then 'checks_per_hour' end,
                    case when release_pipeline_id is distinct from previous_release_pipeline_id then 'release_pipeline' end
                ),
                ''
            ),
            'other'
        )
    end as changed_fields,
    previous_version,
    previous_status,
    previous_gate_type,
    previous_type_reason,
    previous_is_enabled,
    previous_default_value,
    previous_rule_count,
    -- closed without a successor at the same moment: the entity left the list
    valid_to is not null and (next_valid_from is null or next_valid_from > valid_to) as is_retired
from sequenced
