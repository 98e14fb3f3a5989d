"""The code-reference lines of `gatehouse report`'s terminal summary (the report owns the connection)."""

from __future__ import annotations

from collections.abc import Callable

TOP = 5
HOW_TO_SCAN = "run `gatehouse code-refs PATH` on each code repository (docs/code-refs.md)"


def summary_lines(rows: Callable[[str], list[tuple]]) -> list[str]:
    """`rows(sql)` runs a query on the analysis views and returns its rows."""
    [(repositories, last_scan)] = rows(
        "select count(distinct repository), max(scanned_at) from analytics.stg_code_reference_scans"
    )
    if not repositories:
        return [f"code references: no repository scanned yet; {HOW_TO_SCAN}"]
    [(gates, referenced, references, to_archive, to_find)] = rows(
        """
        select count(*),
               count(case when code_reference_count > 0 then 1 end),
               coalesce(sum(code_reference_count), 0),
               count(case when stage = 'ready: archive in the console' then 1 end),
               count(case when stage = 'ready: remove from code' and code_reference_count = 0 and checks_per_hour > 0 then 1 end)
        from analytics.cleanup_worklist
        """
    )
    lines = [
        f"cleanup worklist: {gates} gates, {referenced} referenced in code ({references} references in"
        f" {repositories} {'repository' if repositories == 1 else 'repositories'} scanned, last {last_scan:%Y-%m-%d %H:%M}"
        f" UTC), {to_archive} to archive,"
        f" {to_find} checked but found in no repository"
    ]
    orphans = rows(
        """
        select entity_type, entity_id, console_status, deleted_at, repository, locations
        from analytics.code_orphans
        order by console_status desc, deleted_at desc nulls first, entity_id, repository
        """
    )
    deleted = sum(1 for row in orphans if row[2] == "deleted")
    lines.append(
        f"code orphans: {len(orphans)} ids in code the console does not have ({deleted} deleted,"
        f" {len(orphans) - deleted} never existed)"
    )
    for entity_type, entity_id, status, deleted_at, repository, locations in orphans[:TOP]:
        when = f"{status} {deleted_at:%Y-%m-%d}" if deleted_at is not None else status
        lines.append(f"  {entity_id:<34} {entity_type:<15} {when:<18} {repository}: {locations}")
    return lines
