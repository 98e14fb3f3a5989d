-- grain: one row per stale or at-risk gate, with its owner, where the code references it and what to do; key: project, gate_id
{#
From `stale_gates`, `int_gate_code_lines` and `stg_gates`. A repository's code is no project's: a gate id
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
| `stage`, `action` | `stale_gates.stage` and `stale_gates.recommended_action`: the one judgement for the gate (`gate_lifecycle`) |
#}
{% from 'macros/imports.sql' import imports %}
with {{ imports(stale_gates='stale_gates', live_gates='stg_gates', code_lines='int_gate_code_lines') }},

gate_projects as (
    select
        gate_id,
        count(distinct project) as projects_with_id
    from live_gates
    group by gate_id
),

repository_locations as (
    select
        gate_id,
        repository,
        cast(sum(reference_count) as bigint) as reference_count,
        {% call string_agg("', '", "path, line") %}path || ':' || cast(line as {{ string_type() }}){% endcall %} as locations
    from code_lines
    group by gate_id, repository
),

gate_locations as (
    select
        gate_id,
        cast(sum(reference_count) as bigint) as reference_count,
        count(*) as repository_count,
        {% call string_agg("', '", "repository") %}repository{% endcall %} as repositories,
        -- repository: path:line, path:line; next repository: ...
        {% call string_agg("'; '", "repository") %}repository || ': ' || locations{% endcall %} as locations
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
        stale_gates.stage,
        stale_gates.recommended_action as action
    from stale_gates
    left join gate_locations
        on gate_locations.gate_id = stale_gates.gate_id
    inner join gate_projects
        on gate_projects.gate_id = stale_gates.gate_id
)

select * from final
