export function format(total) {
  return `slow ${total}`;
}
