"""A stub of the SDK: every check answers the gate's value from GATE_VALUE, as the console would for every user."""

import os
from types import SimpleNamespace


def check_gate(user, gate):
    return os.environ["GATE_VALUE"] == "true"


def get_feature_gate(user, gate):
    return SimpleNamespace(value=check_gate(user, gate))
