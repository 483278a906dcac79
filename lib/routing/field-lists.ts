import { z } from "zod";

/**
 * Field drop and allow lists per destination (docs/routing.md#field-lists): what of a call's body a
 * destination never sees, such as `context.ip` or `traits.email`. They work on the body as built for
 * sending (lib/webhooks/payload.ts buildPayload), before it is mapped and signed, so the attempt log
 * shows the body as sent. Without lists the body is the very same object, byte for byte.
 */

export const MAX_FIELD_LIST = 50;
/** What identifies a body to its receiver (and its signature to a replay): never dropped. */
export const KEPT_FIELDS = ["version", "type", "messageId"] as const;
/** An allow list keeps fields inside these objects only; the body's other values stay. */
export const ALLOW_ROOTS = ["properties", "traits", "context"] as const;

const path = z
  .string()
  .trim()
  .min(1, "Name a field, such as context.ip")
  .max(300, "At most 300 characters")
  .refine((p) => !p.split(".").some((s) => s === ""), "A path is names joined by single dots");

const listOf = (entry: z.ZodType<string>) =>
  z
    .array(entry)
    .max(MAX_FIELD_LIST, `At most ${MAX_FIELD_LIST} fields`)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((p, i) => {
        if (seen.has(p)) ctx.addIssue({ code: "custom", path: [i], message: "This field is already listed" });
        seen.add(p);
      });
    });

export const dropListSchema = listOf(
  path.refine((p) => !(KEPT_FIELDS as readonly string[]).includes(p), `${KEPT_FIELDS.join(", ")} are always sent`),
);
export const allowListSchema = listOf(
  path.refine(
    (p) => {
      const [root, ...rest] = p.split(".");
      return (ALLOW_ROOTS as readonly string[]).includes(root) && rest.length > 0;
    },
    `An allowed field is inside ${ALLOW_ROOTS.join(", ")}, such as properties.plan`,
  ),
);

export type FieldLists = { drop: string[]; allow: string[] };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

type Tree = { [name: string]: Tree | true };
function treeOf(paths: string[]): Tree {
  const root: Tree = {};
  for (const p of paths) {
    const names = p.split(".");
    let node = root;
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      // A field already named whole covers everything inside it.
      if (node[name] === true) break;
      if (i === names.length - 1) {
        node[name] = true;
        break;
      }
      let next = node[name];
      if (next === undefined) {
        next = {};
        node[name] = next;
      }
      node = next as Tree;
    }
  }
  return root;
}

/** The fields of `o` the tree names, in `o`'s own key order; a named object that keeps nothing is left out. */
function pick(o: Obj, tree: Tree): Obj {
  const out: Obj = {};
  for (const key of Object.keys(o)) {
    const t = tree[key];
    if (t === true) out[key] = o[key];
    else if (t !== undefined && isObject(o[key])) {
      const inner = pick(o[key], t);
      if (Object.keys(inner).length > 0) out[key] = inner;
    }
  }
  return out;
}

/** `o` without the tree's fields, copying only the objects on the way to one. */
function omit(o: Obj, tree: Tree): Obj {
  let out: Obj | null = null;
  for (const key of Object.keys(tree)) {
    if (!Object.hasOwn(o, key)) continue;
    const t = tree[key];
    out ??= { ...o };
    if (t === true) delete out[key];
    else if (isObject(o[key])) out[key] = omit(o[key], t);
  }
  return out ?? o;
}

/** Whether a destination's field lists change anything (applyFieldLists returns its body itself when not). */
export const listsFields = (lists: FieldLists | null | undefined): lists is FieldLists =>
  !!lists && (lists.drop.length > 0 || lists.allow.length > 0);

/**
 * The body a destination is sent: the allow list keeps, inside each of properties, traits and context
 * it names, only the fields it names; then the drop list removes its fields. Pure; with no lists, or
 * for a deletion notice, it returns `body` itself.
 */
export function applyFieldLists(body: Obj, lists: FieldLists | null | undefined): Obj {
  if (!listsFields(lists)) return body;
  // A deletion notice names the user to erase and nothing else (docs/deletions.md#notices): sent whole.
  if (body.type === "delete") return body;
  let out = body;
  if (lists.allow.length > 0) {
    const allow = treeOf(lists.allow);
    out = { ...body };
    for (const root of Object.keys(allow)) if (isObject(out[root])) out[root] = pick(out[root] as Obj, allow[root] as Tree);
  }
  if (lists.drop.length > 0) out = omit(out, treeOf(lists.drop));
  return out;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The lists of a stored filter column (written through the contract's schema); none when it has none. */
export function storedFieldLists(filter: unknown): FieldLists | null {
  if (!isObject(filter)) return null;
  const lists = { drop: strings(filter.drop), allow: strings(filter.allow) };
  return lists.drop.length === 0 && lists.allow.length === 0 ? null : lists;
}
