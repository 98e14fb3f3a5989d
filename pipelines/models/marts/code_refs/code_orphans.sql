-- grain: one row per gate or config id referenced in a repository's code that no project's console has (never had, or deleted), and project that had it (a null project when none did); key: project, entity_type, entity_id, repository
{#
From `stg_code_references` and the history of both kinds in `int_entity_versions`. A check of such an id silently
returns the default: a live bug. A repository's code is no project's: an id live in any project is no orphan, and a
deleted one is listed under each project whose history holds it.

| column | meaning |
|---|---|
| `project` | a project whose console had the id; null when none ever had it |
| `entity_type`, `entity_id`, `repository` | what the code references, and where |
| `projects_with_id` | how many projects' histories hold the id (0 when it never existed) |
| `console_status` | `deleted`: in the SCD2 history but with no current version; `never existed`: not in the history (found by its SDK call, `match_kind = check_call`, e.g. `checkGate(user, "ghost_gate")`) |
| `deleted_at` | when the last version was closed (`valid_to`), i.e. the load that no longer listed it; null when it never existed |
| `last_name` | its name in the console's history |
| `reference_count`, `locations` | its references; the lines that hold them, `path:line` by path, line, each line once |
| `branch`, `commit_sha`, `scanned_at` | of the repository's last scan |
#}
{% from 'macros/imports.sql' import imports %}
with {{ imports(code_references='stg_code_references', versions='int_entity_versions') }},

entity_history as (
    select
        project,
        entity_type,
        entity_id,
        max(case when is_current then 1 else 0 end) as is_live,
        max(valid_to) as last_valid_to,
        max(entity_name) as last_name
    from versions
    group by project, entity_type, entity_id
),

id_projects as (
    -- every project that has (or had) the id
    select
        entity_type,
        entity_id,
        count(*) as projects_with_id,
        max(is_live) as is_live
    from entity_history
    group by entity_type, entity_id
),

orphan_references as (
    select
        entity_history.project,
        code_references.*,
        entity_history.last_valid_to,
        entity_history.last_name,
        entity_history.entity_id is not null as was_known,
        coalesce(id_projects.projects_with_id, 0) as projects_with_id
    from code_references
    left join id_projects
        on id_projects.entity_type = code_references.entity_type
        and id_projects.entity_id = code_references.entity_id
    left join entity_history
        on entity_history.entity_type = code_references.entity_type
        and entity_history.entity_id = code_references.entity_id
    where id_projects.is_live is null or id_projects.is_live = 0
),

orphan_lines as (
    -- two references on one line are one place to edit
    select
        project,
        entity_type,
        entity_id,
        repository,
        path,
        line,
        max(projects_with_id) as projects_with_id,
        count(*) as reference_count,
        max(case when was_known then 1 else 0 end) as was_known,
        max(last_valid_to) as last_valid_to,
        max(last_name) as last_name,
        max(branch) as branch,
        max(commit_sha) as commit_sha,
        max(scanned_at) as scanned_at
    from orphan_references
    group by project, entity_type, entity_id, repository, path, line
),

final as (
    select
        project,
        entity_type,
        entity_id,
        repository,
        case when max(was_known) = 1 then 'deleted' else 'never existed' end as console_status,
        -- the scd2 history closes a version when the id leaves the console's list
        max(last_valid_to) as deleted_at,
        max(last_name) as last_name,
        max(projects_with_id) as projects_with_id,
        cast(sum(reference_count) as bigint) as reference_count,
        {% call string_agg("', '", "path, line") %}path || ':' || cast(line as {{ string_type() }}){% endcall %} as locations,
        max(branch) as branch,
        max(commit_sha) as commit_sha,
        max(scanned_at) as scanned_at
    from orphan_lines
    group by project, entity_type, entity_id, repository
)

select * from final
