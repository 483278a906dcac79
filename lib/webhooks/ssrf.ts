import "server-only";
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Outbound safety (docs/webhooks.md#outbound-safety): a webhook may not reach loopback, private, link-local, CGNAT,
 * unique-local, multicast or metadata addresses. The check runs inside the connection's own DNS
 * lookup, and the socket connects to the address that was checked, so DNS rebinding cannot slip a
 * private address in between check and connect.
 */

/** How an operator allows what the guard refused: added to every refusal's error. */
export const ALLOW_PRIVATE_HINT = "set EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1 to allow private networks (self-hosting, tests)";

/** ipaddr.js ranges that are public; everything else (private, loopback, linkLocal, carrierGradeNat, uniqueLocal, multicast, unspecified, reserved, …) is refused. */
const PUBLIC_RANGES = new Set(["unicast"]);

export class SsrfError extends Error {
  readonly code = "ERR_EVENTRAIL_SSRF";
  constructor(message: string) {
    super(message);
    this.name = "SsrfError";
  }
}

/** True when `ip` is a public unicast address. IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as its IPv4. */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  if (!PUBLIC_RANGES.has(range)) return false;
  if (addr.kind() === "ipv6") {
    // NAT64/6to4/Teredo embed IPv4 addresses that may be private; 2000::/3 is the only global unicast space.
    const v6 = addr as ipaddr.IPv6;
    if (!v6.match(ipaddr.IPv6.parse("2000::"), 3)) return false;
    if (v6.match(ipaddr.IPv6.parse("2002::"), 16) || v6.match(ipaddr.IPv6.parse("2001::"), 32)) return false;
  }
  return true;
}

type LookupAddress = { address: string; family: number };
type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * A `lookup` for net/tls.connect that refuses non-public addresses. Every resolved address must be
 * public (a name that also resolves privately is refused outright, rather than trusting the order).
 */
export function guardedLookup(resolve: Resolver = systemResolver, hint?: string) {
  return function lookup(
    hostname: string,
    options: dns.LookupOptions | number | ((...a: unknown[]) => void),
    callback?: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) {
    const cb = (typeof options === "function" ? options : callback) as NonNullable<typeof callback>;
    const opts = typeof options === "object" ? options : {};
    resolve(hostname).then(
      (addresses) => {
        const wanted = opts.family === 4 || opts.family === 6 ? addresses.filter((a) => a.family === opts.family) : addresses;
        const refused = wanted.find((a) => !isPublicAddress(a.address));
        if (refused)
          return cb(
            new SsrfError(`${hostname} resolves to ${refused.address}, a private or reserved address${hint ? `; ${hint}` : ""}`),
            "",
            0,
          );
        if (wanted.length === 0) return cb(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
        if (opts.all) return cb(null, wanted);
        cb(null, wanted[0].address, wanted[0].family);
      },
      (err) => cb(err, "", 0),
    );
  };
}

/**
 * Literal IP hosts never reach `lookup`, so they are checked before connecting. Returns the reason a
 * URL is refused, or null. Names are checked later, at connect time, by guardedLookup.
 */
export function refusedLiteralTarget(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && !isPublicAddress(host)) return `${host} is a private or reserved address`;
  return null;
}
