"""`gatehouse cleanup`: stale gates' checks rewritten in code to their decided value, a branch a gate."""
