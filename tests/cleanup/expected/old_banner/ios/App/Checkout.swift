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
        return "plain"
    }

    func title() -> String {
        return Statsig.checkGate("new_checkout") ? "Pay" : "Checkout"
    }
}
