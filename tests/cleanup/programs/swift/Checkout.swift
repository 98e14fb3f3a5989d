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

// locals only the removed branch read: Swift warns of each ("immutable value 'item' was never used"); a loop's or a
// tuple's name becomes `_`, a let goes, or its value goes to `_` where it may have an effect
func receipt(items: [String]) -> String {
    var lines: [String] = []
    for (at, item) in items.enumerated() {
        if Statsig.checkGate("new_checkout") {
            lines.append(item)
        }
        lines.append(String(at))
    }
    let stamp = audit(items.count)
    let tax = 2
    if !Statsig.checkGate("new_checkout") {
        lines.append("\(stamp) \(tax)")
    }
    return lines.joined(separator: ",")
}
