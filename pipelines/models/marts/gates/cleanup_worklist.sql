-- grain: one row per stale or at-risk gate, with its owner, where the code references it and what to do; key: project, gate_id
{#
From `stale_gates`, `stg_code_references` and `stg_gates`. A repository's code is no project's: a gate id
referenced in code is matched to the gate of that id in every project, and `projects_with_id` says in how many.

| column | meaning |
|---|---|
| `project`, `gate_id`, `gate_name`, `owner_name`, `owner_email`, `team`, `staleness`, `staleness_rank`, `type_reason`, `days_since_modified`, `checks_per_hour` | from `stale_gates` |
| `owner_key` | `owner_id`, else `owner_name`, else `(no owner)` (as `stale_gates_by_owner`) |
| `is_code_scanned` | some repository was scanned; when false the code columns say nothing and `action` is `stale_gates.recommended_action` |
| `code_reference_count` | references in all scanned repositories |
| `code_repository_count`, `code_repositories` | how many and which repositories reference it |
| `code_locations` | every line that references it as `path:line`, grouped by repository: `api: app/banner.go:2; web: src/banner.ts:3, src/banner.ts:9` |
| `projects_with_id` | projects with a live gate of this id: above 1, the code references may be another project's gate |
| `action` | referenced by holdouts, configs or gates: as `stale_gates`; referenced in code: `remove the flag in these files and keep the launched path` (launched, all true), `... and delete the dead code path` (unlaunched, all false, no rules), `remove the flag in these files (nothing checks it at run time), then archive it in the console` (dead check), `ask the owner: finish or roll back the partial rollout, then remove the flag in these files` (forgotten); referenced nowhere and never checked: `archive it in the console: no code references it and nothing checks it`; referenced nowhere but checked: `find what checks it: checked at run time but referenced in no scanned repository` |
#}
with stale_gates as (
    select * from {{ ref('stale_gates') }}
),

live_gates as (
    select * from {{ ref('stg_gates') }}
),

gate_projects as (
    select
        gate_id,
        count(distinct project) as projects_with_id
    from live_gates
    group by gate_id
),

code_references as (
    select * from {{ ref('stg_code_references') }}
    where entity_type = 'gate'
),

code_lines as (
    -- two references on one line are one place to edit
    select
        entity_id,
        repository,
        path,
        line,
        count(*) as reference_count
    from code_references
    group by entity_id, repository, path, line
),

repository_locations as (
    select
        entity_id as gate_id,
        repository,
        cast(sum(reference_count) as bigint) as reference_count,
        string_agg(path || ':' || cast(line as varchar), ', ' order by path, line) as locations
    from code_lines
    group by entity_id, repository
),

gate_locations as (
    select
        gate_id,
        cast(sum(reference_count) as bigint) as reference_count,
        count(*) as repository_count,
        string_agg(repository, ', ' order by repository) as repositories,
        -- repository: path:line, path:line; next repository: ...
        string_agg(repository || ': ' || locations, '; ' order by repository) as locations
    from repository_locations
    group by gate_id
),

final as (
    select
        stale_gates.project,
        stale_gates.gate_id,
        stale_gates.gate_name,
        coalesce(stale_gates.owner_id, stale_gates.owner_name, '(no owner)') as owner_key,
        stale_gates.owner_name,
        stale_gates.owner_email,
        stale_gates.team,
        stale_gates.staleness,
        stale_gates.staleness_rank,
        stale_gates.type_reason,
        stale_gates.days_since_modified,
        stale_gates.checks_per_hour,
        stale_gates.code_reference_count is not null as is_code_scanned,
        coalesce(gate_locations.reference_count, 0) as code_reference_count,
        coalesce(gate_locations.repository_count, 0) as code_repository_count,
        gate_locations.repositories as code_repositories,
        gate_locations.locations as code_locations,
        gate_projects.projects_with_id,
        case
            -- without any scan the code is unknown: the console's view of the gate is all there is
            when stale_gates.code_reference_count is null then stale_gates.recommended_action
            when stale_gates.recommended_action like 'ask the owner: still referenced by%'
                then stale_gates.recommended_action
            when gate_locations.reference_count > 0 then
                case
                    when stale_gates.type_reason in ('STALE_PROBABLY_LAUNCHED', 'STALE_ALL_TRUE')
                        then 'remove the flag in these files and keep the launched path'
                    when stale_gates.type_reason in ('STALE_PROBABLY_UNLAUNCHED', 'STALE_ALL_FALSE', 'STALE_NO_RULES')
                        then 'remove the flag in these files and delete the dead code path'
                    when stale_gates.type_reason = 'STALE_PROBABLY_DEAD_CHECK'
                        then 'remove the flag in these files (nothing checks it at run time), then archive it in the console'
                    when stale_gates.type_reason = 'STALE_PROBABLY_FORGOTTEN'
                        then 'ask the owner: finish or roll back the partial rollout, then remove the flag in these files'
                    else stale_gates.recommended_action || ', then remove the flag in these files'
                end
            when coalesce(stale_gates.checks_per_hour, 0) = 0
                then 'archive it in the console: no code references it and nothing checks it'
            else 'find what checks it: checked at run time but referenced in no scanned repository'
        end as action
    from stale_gates
    left join gate_locations
        on gate_locations.gate_id = stale_gates.gate_id
    inner join gate_projects
        on gate_projects.gate_id = stale_gates.gate_id
)

select * from final
