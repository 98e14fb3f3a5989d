-- grain: one row per line of code that references a gate id, as of its repository's last scan; key: gate_id, repository, path, line
{#
From `stg_code_references`, gates only: the places to edit when a gate goes, two references on one line being one
place. A repository's code is no project's: the lines are per gate id, for every project.

| column | meaning |
|---|---|
| `gate_id` | the id the line checks |
| `repository`, `path`, `line` | where |
| `location` | `repository:path:line` |
| `reference_count` | the references on the line |
#}
with final as (
    select
        entity_id as gate_id,
        repository,
        path,
        line,
        location,
        count(*) as reference_count
    from {{ ref('stg_code_references') }}
    where entity_type = 'gate'
    group by entity_id, repository, path, line, location
)

select * from final
