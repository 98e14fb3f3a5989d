import React from "react";
import { useFeatureGate } from "@statsig/react-bindings";

export function Banner(): JSX.Element {
  return <PlainBanner />;
}

export function Checkout(): JSX.Element {
  if (useFeatureGate("half_rollout").value) {
    return <HalfCheckout />;
  }
  return useFeatureGate("new_checkout").value ? <NewCheckout /> : <OldCheckout />;
}
