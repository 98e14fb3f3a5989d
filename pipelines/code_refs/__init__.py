"""`gatehouse code-refs`: where each gate and dynamic config is referenced in code (scan, command, summary);
the scans are loaded by the dlt source in sources/code_refs."""
