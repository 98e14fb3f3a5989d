import Foundation
import Statsig

struct Checkout {
    let tablet: Bool

    func screen() -> String {
        if Statsig.checkGate("new_checkout") {
            return "new"
        }
        return "old"
    }

    func banner() -> String {
        if tablet {
            return "tablet"
        } else if Statsig.checkGate(withName: "new_checkout") {
            return "fresh"
        } else {
            return "legacy"
        }
    }

    func price(total: Int) -> Int {
        guard Statsig.checkGate("new_checkout") else {
            return total + 1
        }
        return total
    }

    func label() -> String {
        let fresh = Statsig.checkGate("new_checkout")
        return fresh ? "fresh" : "legacy"
    }
}
