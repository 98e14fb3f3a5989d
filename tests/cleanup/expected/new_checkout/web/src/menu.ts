import { statsig } from "./statsig";

export async function menu(user: StatsigUser): Promise<string[]> {
  const items = ["home"];
  items.push("checkout");
  if (!statsig.checkGateSync(user, "old_banner") && items.length > 0) {
    items.push("offers");
  }
  return items;
}

export function track(user: StatsigUser): void {
  statsig.logEvent(user, "menu_seen", "new");
  window.dispatchEvent(new CustomEvent("gate", { detail: statsig.checkGateSync(user, "old_banner") }));
}
