"""Where the data is: the one place that knows the destination, opens it, waits for it and reads it."""
