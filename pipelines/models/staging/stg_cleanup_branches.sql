-- grain: one row per cleanup branch made, the history of `gatehouse cleanup`; key: cleanup_id, project, gate_id, repository
{#
From `console.cleanup_branches`: `cleanup_id`; `made_at` (UTC); `project` and `gate_id`, the gate whose checks were
rewritten; `repository`; `branch`; `base_commit`, the commit the branch starts from; `commit_sha` ← `commit`, the
branch's one commit; `cleanup_value`; `files_changed`; `checks_replaced`; `checks_left_todo` ← `todos`, checks given
the value and a `TODO(gatehouse)` comment for a person; `is_latest`: the newest branch of the gate in that repository.
#}
select
    made.cleanup_id,
    {{ utc_timestamp('made.made_at') }} as made_at,
    made.project,
    made.gate_id,
    made.repository,
    made.branch,
    made.base_commit,
    made."commit" as commit_sha,
    made.cleanup_value,
    made.files_changed,
    made.checks_replaced,
    made.todos as checks_left_todo,
    row_number() over (
        partition by made.project, made.gate_id, made.repository
        order by made.made_at desc, made.cleanup_id desc
    ) = 1 as is_latest
from {{ source('cleanup_branches') }} as made
