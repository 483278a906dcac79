/** Field errors as the API sends them and the forms show them (browser-safe). */
export type FieldErrors = Record<string, string[]>;

/** Turns zod issues into `{ "urls.1": ["Invalid URL"] }`. */
export function fieldErrorsFromIssues(issues: { path: PropertyKey[]; message: string }[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join(".") || "_";
    fields[key] ??= [];
    fields[key].push(issue.message);
  }
  return fields;
}
