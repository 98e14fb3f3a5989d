"""A run: extract the console, normalise and load it, count what changed, refresh the views, publish the snapshot."""
