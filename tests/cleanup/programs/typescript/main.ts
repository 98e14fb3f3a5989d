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

// a switch on the check: tsc refuses a case a constant can no longer equal, so it becomes the case that runs
export function shipping(user: { id: string }, weight: number): string {
  const express = Statsig.checkGate(user, "new_checkout");
  switch (express) {
    case true:
      if (weight > 10) {
        return "express heavy";
      }
      return "express";
    case false:
      return `standard ${weight}`;
  }
}

// a switch on a const the check chose: the same, once the const holds one literal
export function flow(user: { id: string }): string {
  const kind = Statsig.checkGate(user, "new_checkout") ? "one-page" : "wizard";
  switch (kind) {
    case "one-page":
      return "one-page flow";
    case "wizard":
    default:
      return "wizard flow";
  }
}

// a break inside an if of a case: not simplified with certainty, the value widened for tsc
export function steps(user: { id: string }, items: number): string[] {
  const done: string[] = [];
  switch (Statsig.checkGate(user, "new_checkout")) {
    case true:
      done.push("review");
      if (items === 0) {
        break;
      }
      done.push("pay");
      break;
    case false:
      done.push("cart");
    default:
      done.push("address");
  }
  return done;
}

// a module's const keeps its name (another module may import it): its value widened for tsc
const EXPRESS_DEFAULT = Statsig.checkGate({ id: "boot" }, "new_checkout");
let greeting = "";
switch (EXPRESS_DEFAULT) {
  case true:
    greeting = "express by default";
    break;
  case false:
    greeting = "standard by default";
}

// locals only the removed branch read: tsc --noUnusedLocals refuses them (TS6133). A loop's or a destructured
// name gets `_` (which tsc accepts), a declaration goes, or its value stays a statement where it may have an effect.

// read by the removed branch alone when the gate is off: it goes, and this comment with it
function shout(text: string): string {
  return text.toUpperCase();
}

function audit(n: number): string {
  console.log("audit", n);
  return String(n);
}

export function receipt(user: { id: string }, items: string[], order: { id: string; total: number }): string {
  const lines: string[] = [];
  for (const item of items) {
    if (Statsig.checkGate(user, "new_checkout")) {
      lines.push(shout(item));
    }
    lines.push("-");
  }
  for (const key in order) {
    if (!Statsig.checkGate(user, "new_checkout")) {
      lines.push(key);
    }
  }
  const { id, total } = order;
  const [first, second] = items;
  const stamp = audit(items.length);
  const tax = 2;
  if (Statsig.checkGate(user, "new_checkout")) {
    lines.push(`${id} ${stamp} ${tax} ${first}`);
  }
  lines.push(String(total), String(second));
  return lines.join(",");
}

// a parameter only the removed branch read: tsconfig.json's noUnusedParameters refuses it (TS6133), so it gets `_`,
// in the JSDoc too; a constructor's parameter property is a field as well: it keeps its name
class Till {
  constructor(private readonly currency: string) {}

  /**
   * The total as the till prints it.
   * @param user who pays
   * @param total the amount
   * @param note said under the total
   */
  print(user: { id: string }, total: number, note: string): string {
    if (Statsig.checkGate(user, "new_checkout")) {
      return `${this.currency}${total} ${note}`;
    }
    return `${total} ${this.currency}`;
  }
}

// private members only the removed branch read: tsconfig.json's noUnusedLocals refuses them (TS6133, TS6138), so they
// go, with their comments; a parameter property read only there stays a parameter, its `private` gone (and, under
// noUnusedParameters, its name given `_`)
const baskets: string[] = [];

class Basket {
  // the discount, in percent
  private discount = 10;
  #bonus = 1;
  private kept = 2;
  private readonly number = baskets.push("basket");
  #counted = baskets.push("counted");

  constructor(
    private readonly region: string,
    private owner: string,
  ) {}

  /** the discounted total */
  private discounted(total: number): number {
    return total - (total * this.discount) / 100 + this.#bonus + this.region.length;
  }

  total(user: { id: string }, total: number): number {
    if (Statsig.checkGate(user, "new_checkout")) {
      return this.discounted(total) + this.owner.length + this.number + this.#counted;
    }
    return total + this.kept;
  }
}

console.log(new Till("$").print({ id: "u1" }, 7, "thanks"), new Basket("eu", "ann").total({ id: "u1" }, 50), baskets.length);
console.log(price({ id: "u1" }, 10), banner({ id: "u1" }), shipping({ id: "u1" }, 12), shipping({ id: "u1" }, 3));
console.log(flow({ id: "u1" }), steps({ id: "u1" }, 0).join(","), steps({ id: "u1" }, 2).join(","), greeting);
console.log(receipt({ id: "u1" }, ["a", "b"], { id: "o1", total: 5 }));
