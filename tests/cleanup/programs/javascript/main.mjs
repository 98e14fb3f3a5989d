import statsig from "./statsig.mjs";
import { format } from "./format.mjs";

export async function price(user, total) {
  if (await statsig.checkGate(user, "new_checkout")) {
    return `fast ${total}`;
  }
  return format(total + 1);
}

function banner(user) {
  const fresh = statsig.checkGateSync(user, "new_checkout");
  return fresh ? "new banner" : "old banner";
}

function label(user, tablet) {
  if (tablet) {
    return "tablet";
  } else if (!statsig.checkGateSync(user, "new_checkout")) {
    return "legacy";
  } else {
    return "fresh";
  }
}

// a switch on the check, falling through to the default: the statements that run
function steps(user) {
  const done = [];
  switch (statsig.checkGateSync(user, "new_checkout")) {
    case false:
      done.push("cart");
    default:
      done.push("address");
      break;
    case true:
      done.push("review");
  }
  return done.join(",");
}

const user = { userID: "u1" };
console.log(await price(user, 10), banner(user), label(user, true), label(user, false), steps(user));
