-- grain: one row per gate id any scan of any repository has referenced, with what every scan kept says of it; key: gate_id
{#
From `stg_code_reference_scans` (every scan of every repository) and `stg_code_references` (the lines of each
repository's last scan). A repository's code is no project's: the evidence is per gate id, for every project.

Absence is evidence only from a repository's last scan when that scan was complete and recent: a repository
whose last scan is older than `code_scan_max_age_days` before the project's "as of" is listed as missing, and
so is one whose last scan skipped files that could hold a reference (`is_complete` false).

| column | meaning |
|---|---|
| `gate_id` | the id the code checks |
| `code_reference_count` | references in the repositories' last scans |
| `referencing_repositories` | the repositories whose last scan references it, by name, comma-separated; null when none |
| `code_owners` | the owners (CODEOWNERS) of the files that reference it now, space-separated; null when none |
| `last_referenced_at` | the last scan that found a reference to it, in any repository |
#}
with references_now as (
    select * from {{ ref('stg_code_references') }}
    where entity_type = 'gate'
),

final as (
    select
        entity_id as gate_id,
        count(*) as code_reference_count,
        string_agg(distinct repository, ', ' order by repository) as referencing_repositories,
        cast(null as varchar) as code_owners,
        max(scanned_at) as last_referenced_at
    from references_now
    group by entity_id
)

select * from final
