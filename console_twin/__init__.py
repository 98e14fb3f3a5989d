"""A faithful local implementation of the console interface, for the demo, tests, fault drills and benchmarks.

It shares no code with `sources` (the client): each catches the other's mistakes.
"""

from gatehouse.console_twin.generator import SIZES, TWIN_EPOCH, OrgSize
from gatehouse.console_twin.host import ConsoleHost
from gatehouse.console_twin.organisation import Experiment, IngestionRun, Organisation
from gatehouse.console_twin.settings import Fault, PageServed, PaginationStyle, TwinSettings
from gatehouse.console_twin.traffic import RecordedRequest
from gatehouse.console_twin.twin import ConsoleTwin

__all__ = [
    "ConsoleHost",
    "ConsoleTwin",
    "Experiment",
    "Fault",
    "IngestionRun",
    "OrgSize",
    "Organisation",
    "PageServed",
    "PaginationStyle",
    "RecordedRequest",
    "SIZES",
    "TWIN_EPOCH",
    "TwinSettings",
]
