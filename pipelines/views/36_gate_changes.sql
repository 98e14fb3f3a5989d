-- grain: one row per change in a gate's scd2 history (first seen, modified, retired, restored); key: gate_id, observed_at
with versions as (
    select * from analytics.stg_entity_versions
    where entity_kind = 'gate'
),

version_changes as (
    select
        entity_id as gate_id,
        entity_name as gate_name,
        change_kind,
        valid_from as observed_at,
        last_modified_at as changed_at,
        last_modifier_name as changed_by,
        changed_fields,
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
        version_id as gate_version_id
    from versions
),

retirements as (
    select
        entity_id as gate_id,
        entity_name as gate_name,
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
        version_id as gate_version_id
    from versions
    where is_retired
),

final as (
    select * from version_changes
    union all
    select * from retirements
)

select * from final
