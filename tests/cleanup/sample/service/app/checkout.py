from statsig import statsig

from app.pages import beta_page, new_page, old_page


def checkout_page(user):
    if statsig.check_gate(user, "new_checkout"):
        return new_page(user)
    return old_page(user)


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
    express = cart.small and statsig.get_feature_gate(user, "new_checkout").value
    label = "new" if statsig.check_gate(user, "new_checkout") else "old"
    if statsig.check_gate(user, "half_rollout"):
        label += " (half)"
    return label, express


def audit(user):
    record("new_checkout", statsig.check_gate(user, "new_checkout"))
