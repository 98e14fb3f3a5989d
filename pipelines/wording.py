"""How gatehouse words a count for people: one rule, for the terminal, the alerts and the reports."""


def counted(number: int, singular: str, plural: str = "") -> str:
    """`1 dynamic config`, `2 dynamic configs`, `0 gates`, `1,204 references`."""
    return f"{number:,} {singular if number == 1 else (plural or singular + 's')}"
