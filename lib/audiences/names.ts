import { snakeCase, split } from "change-case";

/**
 * change-case splits "B2B" into "B2" + "B" (a digit then a capital starts a word); joined by a
 * space or punctuation that is right, inside one word it is not: "B2B Leads" must stay `b2b_leads`.
 */
function splitKeepingDigitAcronyms(value: string): string[] {
  return value.split(/[^\p{L}\p{N}]+/u).flatMap((chunk) =>
    split(chunk).reduce<string[]>((words, w) => {
      const prev = words[words.length - 1];
      if (prev !== undefined && /\p{N}$/u.test(prev) && /^\p{Lu}+$/u.test(w)) words[words.length - 1] = prev + w;
      else words.push(w);
      return words;
    }, []),
  );
}

/**
 * The identify trait an audience sets: the snake_case of its name ("Premium Users" →
 * `premium_users`). Empty when the name has no letters or digits (the API refuses such names).
 */
export function audiencePropertyName(name: string): string {
  return snakeCase(name.trim(), { split: splitKeepingDigitAcronyms });
}
