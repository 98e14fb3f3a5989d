-- grain: one row per change in a gate's scd2 history (first seen, modified, retired, restored); key: gate_id, observed_at
with versions as (
    select * from analytics.stg_gate_versions
),

gate_rules as (
    select * from analytics.stg_gate_rules
),

gate_conditions as (
    select * from analytics.stg_gate_rule_conditions
),

gate_targets as (
    select * from analytics.stg_gate_condition_targets
),

gate_holdouts as (
    select * from analytics.stg_gate_holdouts
),

condition_targets as (
    select
        gate_condition_row_id,
        string_agg(target_value, '|' order by target_position) as target_values
    from gate_targets
    group by gate_condition_row_id
),

rule_conditions as (
    select
        gate_conditions.gate_rule_row_id,
        string_agg(
            coalesce(gate_conditions.condition_type, '') || '/' || coalesce(gate_conditions.operator, '') || '/'
            || coalesce(gate_conditions.field, '') || '/' || coalesce(condition_targets.target_values, ''),
            ';' order by gate_conditions.condition_position
        ) as conditions_fingerprint
    from gate_conditions
    left join condition_targets
        on condition_targets.gate_condition_row_id = gate_conditions.gate_condition_row_id
    group by gate_conditions.gate_rule_row_id
),

version_rules as (
    -- what a rule change means here: any rule added, removed, reordered, renamed, re-targeted or re-weighted
    select
        gate_rules.gate_version_id,
        count(*) as rule_count,
        string_agg(
            coalesce(gate_rules.rule_id, '') || ':' || coalesce(gate_rules.rule_name, '') || ':'
            || coalesce(cast(gate_rules.pass_percentage as varchar), '') || '[' || coalesce(rule_conditions.conditions_fingerprint, '') || ']',
            ',' order by gate_rules.rule_position
        ) as rules_fingerprint
    from gate_rules
    left join rule_conditions
        on rule_conditions.gate_rule_row_id = gate_rules.gate_rule_row_id
    group by gate_rules.gate_version_id
),

version_holdouts as (
    select
        gate_version_id,
        string_agg(holdout_id, ',' order by holdout_position) as holdouts_fingerprint
    from gate_holdouts
    group by gate_version_id
),

sequenced as (
    select
        versions.gate_version_id,
        versions.gate_id,
        versions.gate_name,
        versions.description,
        versions.status,
        versions.gate_type,
        versions.type_reason,
        versions.is_enabled,
        versions.checks_per_hour,
        versions.owner_id,
        versions.team,
        versions.version,
        versions.last_modified_at,
        versions.last_modifier_name,
        versions.valid_from,
        versions.valid_to,
        coalesce(version_rules.rule_count, 0) as rule_count,
        version_rules.rules_fingerprint,
        version_holdouts.holdouts_fingerprint,
        lag(versions.valid_from) over gate_history as previous_valid_from,
        lag(versions.valid_to) over gate_history as previous_valid_to,
        lead(versions.valid_from) over gate_history as next_valid_from,
        lag(versions.gate_name) over gate_history as previous_gate_name,
        lag(versions.description) over gate_history as previous_description,
        lag(versions.status) over gate_history as previous_status,
        lag(versions.gate_type) over gate_history as previous_gate_type,
        lag(versions.type_reason) over gate_history as previous_type_reason,
        lag(versions.is_enabled) over gate_history as previous_is_enabled,
        lag(versions.checks_per_hour) over gate_history as previous_checks_per_hour,
        lag(versions.owner_id) over gate_history as previous_owner_id,
        lag(versions.team) over gate_history as previous_team,
        lag(versions.version) over gate_history as previous_version,
        lag(coalesce(version_rules.rule_count, 0)) over gate_history as previous_rule_count,
        lag(version_rules.rules_fingerprint) over gate_history as previous_rules_fingerprint,
        lag(version_holdouts.holdouts_fingerprint) over gate_history as previous_holdouts_fingerprint
    from versions
    left join version_rules
        on version_rules.gate_version_id = versions.gate_version_id
    left join version_holdouts
        on version_holdouts.gate_version_id = versions.gate_version_id
    window gate_history as (partition by versions.gate_id order by versions.valid_from)
),

version_changes as (
    select
        gate_id,
        gate_name,
        case
            when previous_valid_from is null then 'first seen'
            when previous_valid_to < valid_from then 'restored'
            else 'modified'
        end as change_kind,
        valid_from as observed_at,
        last_modified_at as changed_at,
        last_modifier_name as changed_by,
        case
            when previous_valid_from is not null then coalesce(
                nullif(
                    concat_ws(
                        ', ',
                        case when gate_name is distinct from previous_gate_name then 'name' end,
                        case when description is distinct from previous_description then 'description' end,
                        case when status is distinct from previous_status then 'status' end,
                        case when gate_type is distinct from previous_gate_type then 'type' end,
                        case when type_reason is distinct from previous_type_reason then 'type_reason' end,
                        case when is_enabled is distinct from previous_is_enabled then 'is_enabled' end,
                        case when rules_fingerprint is distinct from previous_rules_fingerprint then 'rules' end,
                        case when holdouts_fingerprint is distinct from previous_holdouts_fingerprint then 'holdouts' end,
                        case when owner_id is distinct from previous_owner_id then 'owner' end,
                        case when team is distinct from previous_team then 'team' end,
                        case when checks_per_hour is distinct from previous_checks_per_hour then 'checks_per_hour' end
                    ),
                    ''
                ),
                'other'
            )
        end as changed_fields,
        previous_version,
        version,
        previous_status,
        status,
        previous_gate_type,
        gate_type,
        previous_type_reason,
        type_reason,
        previous_is_enabled,
        is_enabled,
        previous_rule_count,
        rule_count,
        gate_version_id
    from sequenced
),

retirements as (
    -- a version closed without a successor at the same moment: the gate left the list
    select
        gate_id,
        gate_name,
        'retired' as change_kind,
        valid_to as observed_at,
        cast(null as timestamp) as changed_at,
        cast(null as varchar) as changed_by,
        cast(null as varchar) as changed_fields,
        version as previous_version,
        cast(null as bigint) as version,
        status as previous_status,
        cast(null as varchar) as status,
        gate_type as previous_gate_type,
        cast(null as varchar) as gate_type,
        type_reason as previous_type_reason,
        cast(null as varchar) as type_reason,
        is_enabled as previous_is_enabled,
        cast(null as boolean) as is_enabled,
        rule_count as previous_rule_count,
        cast(null as bigint) as rule_count,
        gate_version_id
    from sequenced
    where valid_to is not null
        and (next_valid_from is null or next_valid_from > valid_to)
),

final as (
    select * from version_changes
    union all
    select * from retirements
)

select * from final
