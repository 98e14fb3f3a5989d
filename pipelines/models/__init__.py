"""The analysis layer: SQL models (staging, intermediate, marts) in a derived order, applied as views on any destination."""
