/**
 * Whether a request target's path has a `.` or `..` segment (RFC 3986 §5.2.4), spelled plainly
 * or percent-encoded. The router does not resolve them, and a proxy in front may or may not:
 * rather than guess what such a path names, the service answers it `404` everywhere.
 */
export function hasDotSegment(url: string): boolean {
  // Most request targets have neither character anywhere: nothing to split.
  if (!url.includes('.') && !url.includes('%')) return false;
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  if (!path.includes('.') && !/%2e/i.test(path)) return false;
  return path.split('/').some((segment) => {
    const decoded = segment.replace(/%2e/gi, '.');
    return decoded === '.' || decoded === '..';
  });
}
