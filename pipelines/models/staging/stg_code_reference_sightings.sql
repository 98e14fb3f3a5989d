-- grain: one row per gate or dynamic config id found in a repository by one scan, every scan kept; key: scan_id, repository, entity_type, entity_id
{#
From `console.code_reference_sightings`: `scan_id`, `repository`, `scanned_at` (UTC), `entity_type`, `entity_id`,
`reference_count` (its references in that scan), `code_owners` (every owner of the files referencing it, by the
repository's CODEOWNERS, sorted, space-separated; null when none). An id the scan did not find in the repository
has no row: the scan's row in `stg_code_reference_scans` says the repository was scanned.
#}
select
    sightings.scan_id,
    sightings.repository,
    {{ utc_timestamp('sightings.scanned_at') }} as scanned_at,
    sightings.entity_type,
    sightings.entity_id,
    sightings.reference_count,
    sightings.code_owners
from {{ source('code_reference_sightings') }} as sightings
