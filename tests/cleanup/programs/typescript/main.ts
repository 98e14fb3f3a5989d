import Statsig from "./statsig";
import { format } from "./format";

export function price(user: { id: string }, total: number): string {
  if (Statsig.checkGate(user, "new_checkout")) {
    return `fast ${total}`;
  }
  return format(total + 1);
}

export function banner(user: { id: string }): string {
  const fresh = Statsig.checkGate(user, "new_checkout");
  return fresh ? "new banner" : "old banner";
}

console.log(price({ id: "u1" }, 10), banner({ id: "u1" }));
