"""The dlt sources: the console (`sources.console`, client and resources) and the code references (`sources.code_refs`)."""
