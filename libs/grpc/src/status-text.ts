/**
 * The longest status message (grpc-message) a server sends, in characters.
 * The message travels percent-encoded in an HTTP/2 trailer; an unbounded one
 * (an echoed 100 KB id) overflows the peer's header-list limit, and the
 * status never arrives (docs/security.md, "Bad input at the gRPC ports").
 */
export const MAX_STATUS_MESSAGE_CHARS = 1024;

/**
 * Bounds text that goes into a status message: at most `max` characters
 * (code points, never a split surrogate pair), the rest replaced by a note
 * of how much was cut. Use it on anything that may echo caller input.
 */
export function truncateForStatus(text: string, max = MAX_STATUS_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}
