import logging
import sys

from statsig import statsig
from statsig.statsig_user import StatsigUser

log = logging.getLogger("checkout")


def price(user, total):
    if statsig.check_gate(user, "new_checkout"):
        return total
    log.info("legacy price")
    return total + 1


def banner(user):
    fresh = statsig.check_gate(user, "new_checkout")
    return "new banner" if fresh else "old banner"


def label(user, tablet):
    if tablet and not statsig.check_gate(user, "new_checkout"):
        return "legacy"
    elif statsig.get_feature_gate(user, "new_checkout").value:
        return "fresh"
    return "other"


def main():
    user = StatsigUser("u1")
    sys.stdout.write(f"{price(user, 10)} {banner(user)} {label(user, True)} {label(user, False)}\n")


main()
