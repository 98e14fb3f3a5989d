export default { checkGate: (_user: { id: string }, _gate: string): boolean => process.env.GATE_VALUE === "true" };
