/**
 * Delivery errors in words (docs/dashboard.md#request-log): "500 Internal Server Error", not
 * "http: HTTP 500"; the endpoint's answer first, then the kind of failure when there was none. Pure,
 * shared by the log, the overview, endpoint health, alerts and deletions.
 */

// RFC 9110's reason phrases, and the ones receivers commonly send beyond it.
const REASONS: Record<number, string> = {
  300: "Multiple Choices",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  418: "I'm a teapot",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  425: "Too Early",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  507: "Insufficient Storage",
  508: "Loop Detected",
  511: "Network Authentication Required",
};

/** `500 Internal Server Error`; a status without a known phrase stands alone. */
export const statusText = (status: number): string => (REASONS[status] ? `${status} ${REASONS[status]}` : String(status));

/** Each kind of failure without an answer, in words. */
export const KIND_WORDS: Record<string, string> = {
  timeout: "No answer in time",
  connection: "Could not connect",
  dns: "Host name not found",
  tls: "TLS certificate not accepted",
  ssrf: "Address not allowed (private network)",
  auth: "Could not get an access token",
  internal: "Not sent",
  interrupted: "Interrupted: may have been sent, sent again",
  http: "Error answer",
};

/**
 * A stored error text as people read it: `HTTP 500` → `500 Internal Server Error` (also after the
 * URL a destination with several URLs names first, `https://b.example/hook: HTTP 500`), anything else as it is.
 */
export function describeErrorText(text: string): string {
  return text.replace(/(^|: )HTTP (\d{3})\b/, (_, lead: string, code: string) => lead + statusText(Number(code)));
}

/**
 * One attempt's failure: the status the endpoint answered, in words; or, without an answer, the
 * kind in words and what happened (`No answer in time: timed out after 5000 ms`).
 */
export function describeFailure(a: { responseStatus?: number | null; errorKind?: string | null; errorText?: string | null }): string {
  if (a.responseStatus != null) {
    const words = statusText(a.responseStatus);
    const more = a.errorText ? describeErrorText(a.errorText).replace(words, "").trim() : "";
    return more ? `${words} ${more}` : words;
  }
  const kind = a.errorKind ? (KIND_WORDS[a.errorKind] ?? a.errorKind) : "Error";
  return a.errorText ? `${kind}: ${a.errorText}` : kind;
}
