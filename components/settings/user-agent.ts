import Bowser from "bowser";

/**
 * A session's browser as people name it ("Chrome 156 on Linux"), from the User-Agent header
 * stored with the session. The raw header stays available as the label's title; a client that
 * names no known browser (curl, a script) shows the header's first product token instead.
 */
export function deviceLabel(userAgent: string | null): string {
  if (!userAgent) return "unknown browser";
  const { browser, os } = Bowser.parse(userAgent);
  if (!browser.name) return userAgent.split(/\s/, 1)[0].slice(0, 40) || "unknown browser";
  const major = browser.version?.split(".")[0];
  const name = major ? `${browser.name} ${major}` : browser.name;
  return os.name ? `${name} on ${os.name}` : name;
}
