import Statsig

struct Checkout {
    func screen() -> String {
        let useNew = Statsig.checkGate("new_checkout")
        if useNew {
            return "new"
        }
        return "old"
    }

    func banner() -> String {
        if !Statsig.checkGate(withName: "old_banner") {
            return "plain"
        } else {
            return "old"
        }
    }

    func title() -> String {
        return Statsig.checkGate("new_checkout") ? "Pay" : "Checkout"
    }
}
