import { statsig } from "./statsig";

export async function menu(user: StatsigUser): Promise<string[]> {
  const items = ["home"];
  if (await statsig.checkGate(user, "new_checkout")) {
    items.push("checkout");
  } else {
    items.push("cart");
  }
  if (items.length > 0) {
    items.push("offers");
  }
  return items;
}

export function track(user: StatsigUser): void {
  statsig.logEvent(user, "menu_seen", statsig.checkGateSync(user, "new_checkout") ? "new" : "old");
  window.dispatchEvent(new CustomEvent("gate", { detail: false }));  // TODO(gatehouse): the gate's value, used where gatehouse cannot simplify it
}
