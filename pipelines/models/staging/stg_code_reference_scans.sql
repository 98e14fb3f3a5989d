-- grain: one row per repository per scan, the history of `gatehouse code-refs`; key: scan_id, repository
{#
From `console.code_reference_scans`: `scan_id`, `repository`, `branch`, `commit_sha` ← `commit`, `scanned_at` (UTC),
`files_scanned`, `bytes_scanned`, `files_skipped_binary`, `files_skipped_large`, `files_excluded`,
`reference_count`, `gate_count`, `dynamic_config_count`, `unknown_id_count`, `is_complete` (every file that could
hold a reference was read: false when some were skipped as too large or unreadable; null for a scan loaded before
gatehouse recorded it), `incomplete_reason` (null when complete, e.g. `3 files skipped as too large`), `is_latest`:
the repository's last scan.
#}
select
    scans.scan_id,
    scans.repository,
    scans.branch,
    scans."commit" as commit_sha,
    {{ utc_timestamp('scans.scanned_at') }} as scanned_at,
    scans.files_scanned,
    scans.bytes_scanned,
    scans.files_skipped_binary,
    scans.files_skipped_large,
    scans.files_excluded,
    scans.reference_count,
    scans.gate_count,
    scans.dynamic_config_count,
    scans.unknown_id_count,
    scans.is_complete,
    scans.incomplete_reason,
    row_number() over (partition by scans.repository order by scans.scanned_at desc, scans.scan_id desc) = 1 as is_latest
from {{ source('code_reference_scans') }} as scans
