"""Where each gate and dynamic config is referenced in code: the scanner (scan.py) and its lines in the report summary
(summary.py); the command is pipelines/cli/code_refs.py, the loading sources/code_refs."""
