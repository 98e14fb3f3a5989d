export function format(total: number): string { return `slow ${total}`; }
