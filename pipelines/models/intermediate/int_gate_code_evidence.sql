-- grain: one row per gate id any scan of any repository has referenced, with what every scan kept says of it; key: gate_id
{#
From `stg_code_references` (the lines of each repository's last scan, with their owners), `stg_code_reference_sightings`
(every scan's ids, per repository) and `stg_code_reference_scans` (every scan). A repository's code is no
project's: the evidence is per gate id, for every project. What a repository references now is read from its last
scan's lines, so a dataset scanned before sightings were kept still answers; the history (when, and since when not)
is read from the sightings.

| column | meaning |
|---|---|
| `gate_id` | the id the code checks |
| `code_reference_count` | references in the repositories' last scans; 0 when none references it now |
| `referencing_repositories` | the repositories whose last scan references it, by name, comma-separated; null when none |
| `code_owners` | the owners (CODEOWNERS) of the files that reference it in each repository's last scan, by repository: `api: @org/api; web: @ana @org/web`; null when none |
| `last_referenced_at` | the last scan, of any repository, that found it |
| `gone_from_code_since` | when no repository references it now: the first scan after the last one that found it, in the repository that found it last |
#}
{% from 'macros/imports.sql' import imports %}
with {{ imports(references_now='stg_code_references', sightings='stg_code_reference_sightings',
                scans='stg_code_reference_scans') }},

gate_lines as (
    select * from references_now
    where entity_type = 'gate'
),

owners_now as (
    -- each repository's last scan: the owners of the files that reference the gate there, each once
    select
        sightings.entity_id,
        sightings.repository,
        sightings.code_owners
    from sightings
    inner join scans
        on scans.repository = sightings.repository
        and scans.scan_id = sightings.scan_id
        and scans.is_latest
    where sightings.entity_type = 'gate' and sightings.code_owners is not null
),

referenced_now as (
    select
        entity_id as gate_id,
        count(*) as code_reference_count,
        {% call string_agg("', '", "repository") %}distinct repository{% endcall %} as referencing_repositories
    from gate_lines
    group by entity_id
),

owner_lists as (
    select
        entity_id as gate_id,
        {% call string_agg("'; '", "repository") %}repository || ': ' || code_owners{% endcall %} as code_owners
    from owners_now
    group by entity_id
),

last_sightings as (
    select
        entity_id as gate_id,
        repository,
        max(scanned_at) as last_seen_at
    from sightings
    where entity_type = 'gate'
    group by entity_id, repository
),

first_absences as (
    -- per gate and repository, the first scan of that repository after it last found the gate
    select
        last_sightings.gate_id,
        last_sightings.repository,
        last_sightings.last_seen_at,
        min(scans.scanned_at) as first_absent_at
    from last_sightings
    left join scans
        on scans.repository = last_sightings.repository
        and scans.scanned_at > last_sightings.last_seen_at
    group by last_sightings.gate_id, last_sightings.repository, last_sightings.last_seen_at
),

history as (
    select
        gate_id,
        max(last_seen_at) as last_referenced_at,
        max(first_absent_at) as latest_first_absence
    from first_absences
    group by gate_id
),

gate_ids as (
    select gate_id from referenced_now
    {{ union_distinct() }}
    select gate_id from history
),

final as (
    select
        gate_ids.gate_id,
        coalesce(referenced_now.code_reference_count, 0) as code_reference_count,
        referenced_now.referencing_repositories,
        owner_lists.code_owners,
        history.last_referenced_at,
        case when referenced_now.gate_id is null then history.latest_first_absence end as gone_from_code_since
    from gate_ids
    left join referenced_now
        on referenced_now.gate_id = gate_ids.gate_id
    left join owner_lists
        on owner_lists.gate_id = gate_ids.gate_id
    left join history
        on history.gate_id = gate_ids.gate_id
)

select * from final
