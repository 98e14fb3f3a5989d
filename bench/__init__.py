"""`make bench`: gatehouse's speed, request economy and memory against the rate-limit floor and against
dlt's generic rest_api source, each job in its own process against a console twin in another.

Modules: run (the entry and the order of jobs), twin_control (the twin's process and its control
channel), processes (measured job processes, peak memory), job (what runs inside a job process),
rest_api_alternative (the alternative's config), floor, results (medians, ratios, targets, Markdown),
findings (what stands in the way, with the run's figures).
"""
