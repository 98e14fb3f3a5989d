"""`make bench`: gatehouse's speed, request economy and memory against the rate-limit floor and against
dlt's generic rest_api source, each job in its own process against a console twin in another.

Modules: run (the entry and the order of jobs), twin_control (the twin's process and its control
channel), processes (measured job processes, peak memory), job (what runs inside a job process),
rest_api_alternative (the alternative's config), floor, results (medians, ratios, targets, Markdown),
findings (what stands in the way, with the run's figures). The other benches, code_refs, analysis_layer
and rule_costs, are entry points too; what they share with run is in results_md (RESULTS.md, bench/out/,
each bench's section), machine (the machine's description), processes and postgres_server. No entry
point is imported by a shared module; run imports code_refs, which it runs after itself
(docs/architecture.md, "bench").
"""
