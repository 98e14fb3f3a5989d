"""`gatehouse code-refs`: where each gate and dynamic config is referenced in code (scan, load, command)."""
