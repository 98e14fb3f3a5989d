import Statsig

struct Checkout {
    func screen() -> String {
        return "new"
    }

    func banner() -> String {
        if !Statsig.checkGate(withName: "old_banner") {
            return "plain"
        } else {
            return "old"
        }
    }

    func title() -> String {
        return "Pay"
    }
}
