"""What gatehouse does with the sources: the command line, runs, the warehouse, the SQL models, reports, alerts, schedules."""
