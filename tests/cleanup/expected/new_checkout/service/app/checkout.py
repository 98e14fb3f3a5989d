from statsig import statsig

from app.pages import beta_page, new_page


def checkout_page(user):
    return new_page(user)


def banner(user):
    show = statsig.check_gate(user, "old_banner")
    if not show:
        return None
    return "banner"


def layout(user):
    if statsig.check_gate_with_exposure_logging_disabled(user, "old_banner"):
        columns = 3
    elif user.is_beta:
        columns = 2
    else:
        columns = 1
    return columns


def summary(user, cart):
    express = cart.small and True  # TODO(gatehouse): the gate's value, used where gatehouse cannot simplify it
    label = "new"
    if statsig.check_gate(user, "half_rollout"):
        label += " (half)"
    return label, express


def audit(user):
    record("new_checkout", True)  # TODO(gatehouse): the gate's value, used where gatehouse cannot simplify it
