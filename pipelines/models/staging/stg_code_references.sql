-- grain: one row per reference to a gate or dynamic config id in a repository's code, as of its last scan; key: repository, path, line, column_number, entity_type, entity_id
{#
From `console.code_references`: `repository`; `branch`; `commit_sha` ← `commit`; `path`; `line`; `column_number` ←
`column`; `location` (`repository:path:line`); `entity_type`; `entity_id`; `line_text` ← `text`; `matched`;
`match_kind`; `scanned_at` (UTC); `scan_id`; `code_owners` (the file's owners by the repository's CODEOWNERS,
space-separated in that file's order, null when none).
#}
select
    refs.repository,
    refs.branch,
    refs."commit" as commit_sha,
    refs.path,
    refs.line,
    refs."column" as column_number,
    refs.repository || ':' || refs.path || ':' || cast(refs.line as {{ string_type() }}) as location,
    refs.entity_type,
    refs.entity_id,
    refs.text as line_text,
    refs.matched,
    refs.match_kind,
    {{ utc_timestamp('refs.scanned_at') }} as scanned_at,
    refs.scan_id,
    refs.code_owners
from {{ source('code_references') }} as refs
