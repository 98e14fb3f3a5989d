import React from "react";
import { useFeatureGate, useGateValue } from "@statsig/react-bindings";

export function Banner(): JSX.Element {
  const showOld = useGateValue("old_banner");
  return showOld ? <OldBanner /> : <PlainBanner />;
}

export function Checkout(): JSX.Element {
  if (useFeatureGate("half_rollout").value) {
    return <HalfCheckout />;
  }
  return <NewCheckout />;
}
