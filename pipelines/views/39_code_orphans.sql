-- grain: one row per gate or config id referenced in a repository's code that the console does not have (never had, or deleted); key: entity_type, entity_id, repository
with code_references as (
    select * from analytics.stg_code_references
),

gate_versions as (
    select * from analytics.stg_gate_versions
),

config_versions as (
    select * from analytics.stg_dynamic_config_versions
),

entity_history as (
    select
        'gate' as entity_type,
        gate_id as entity_id,
        max(case when is_current then 1 else 0 end) as is_live,
        max(valid_to) as last_valid_to,
        max(gate_name) as last_name
    from gate_versions
    group by gate_id
    union all
    select
        'dynamic_config' as entity_type,
        config_id as entity_id,
        max(case when is_current then 1 else 0 end) as is_live,
        max(valid_to) as last_valid_to,
        max(config_name) as last_name
    from config_versions
    group by config_id
),

orphan_references as (
    select
        code_references.*,
        entity_history.last_valid_to,
        entity_history.last_name,
        entity_history.entity_id is not null as was_known
    from code_references
    left join entity_history
        on entity_history.entity_type = code_references.entity_type
        and entity_history.entity_id = code_references.entity_id
    where entity_history.is_live is null or entity_history.is_live = 0
),

final as (
    select
        entity_type,
        entity_id,
        repository,
        case when max(case when was_known then 1 else 0 end) = 1 then 'deleted' else 'never existed' end as console_status,
        -- the scd2 history closes a version when the id leaves the console's list
        max(last_valid_to) as deleted_at,
        max(last_name) as last_name,
        count(*) as reference_count,
        string_agg(path || ':' || cast(line as varchar), ', ' order by path, line, column_number) as locations,
        max(branch) as branch,
        max(commit_sha) as commit_sha,
        max(scanned_at) as scanned_at
    from orphan_references
    group by entity_type, entity_id, repository
)

select * from final
