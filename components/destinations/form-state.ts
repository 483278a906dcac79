import type { DestinationDto } from "@/lib/destinations/schemas";

/** What the destination form edits: strings where the user types, turned into API input on submit. */
export type FormState = {
  name: string;
  urls: string[];
  headers: { name: string; value: string }[];
  sharedSecret: string;
  standardWebhooks: boolean;
  standardSecret: string;
  enabled: boolean;
  mode: "any" | "every";
  retryWindowMinutes: string;
  sourceIds: string[];
};

export const emptyForm = (): FormState => ({
  name: "",
  urls: [""],
  headers: [],
  sharedSecret: "",
  standardWebhooks: false,
  standardSecret: "",
  enabled: true,
  mode: "any",
  retryWindowMinutes: "240",
  sourceIds: [],
});

export const formFromDestination = (d: DestinationDto): FormState => ({
  name: d.name,
  urls: d.urls.length ? [...d.urls] : [""],
  headers: d.headers.map((h) => ({ ...h })),
  sharedSecret: d.sharedSecret ?? "",
  standardWebhooks: d.standardWebhooks,
  standardSecret: d.standardSecret ?? "",
  enabled: d.enabled,
  mode: d.mode,
  retryWindowMinutes: String(d.retryWindowMinutes),
  sourceIds: [...d.sourceIds],
});

/** The API input, unvalidated: the shared zod schema decides (a blank number stays NaN and is refused). */
export function formToInput(f: FormState) {
  return {
    name: f.name,
    urls: f.urls,
    headers: f.headers,
    sharedSecret: f.sharedSecret,
    standardWebhooks: f.standardWebhooks,
    // A secret left in the field while the option is off is not sent.
    standardSecret: f.standardWebhooks ? f.standardSecret : "",
    enabled: f.enabled,
    mode: f.mode,
    retryWindowMinutes: f.retryWindowMinutes.trim() === "" ? Number.NaN : Number(f.retryWindowMinutes),
    sourceIds: f.sourceIds,
  };
}

export function generateSharedSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function generateStandardSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** "1 hour", "4 hours", "1 day 6 hours": the retry window as people say it. */
export function describeMinutes(raw: string): string | null {
  const m = Number(raw);
  if (!Number.isInteger(m) || m <= 0) return null;
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  const part = (n: number, unit: string) => (n ? `${n} ${unit}${n === 1 ? "" : "s"}` : "");
  return [part(d, "day"), part(h, "hour"), part(min, "minute")].filter(Boolean).join(" ");
}
