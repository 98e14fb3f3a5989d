"""The notebooks `gatehouse report` executes (package data: found with importlib.resources, also from a wheel)."""
