"use client";

import { MAX_DEPTH, OPERATORS, UNARY_OPERATORS, type Operator } from "@/lib/audiences/condition";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { newEvent, newFilter, newGroup, newTrait, type DraftEvent, type DraftFilter, type DraftGroup, type DraftNode, type DraftTrait } from "./draft";

const OP_LABELS: Record<Operator, string> = {
  equals: "equals",
  not_equals: "does not equal",
  exists: "exists",
  not_exists: "does not exist",
  contains: "contains",
  gt: "is greater than",
  gte: "is at least",
  lt: "is less than",
  lte: "is at most",
};

/** Field errors from the API/zod, keyed by path inside the condition ("all.1.atLeast"). */
export type ConditionErrors = Record<string, string[] | undefined>;

// The form inputs without their full width: builder rows put several on one line.
const small = inputClass.replace("block w-full", "inline-block");

function OperatorSelect({ value, onChange, label }: { value: Operator; onChange: (op: Operator) => void; label: string }) {
  return (
    <select aria-label={label} className={small} value={value} onChange={(e) => onChange(e.target.value as Operator)}>
      {OPERATORS.map((op) => (
        <option key={op} value={op}>
          {OP_LABELS[op]}
        </option>
      ))}
    </select>
  );
}

const errorAt = (errors: ConditionErrors, path: string) => errors[path]?.[0];

function FieldError({ message }: { message?: string }) {
  return message ? <p className="text-xs text-red-600">{message}</p> : null;
}

function TraitRow({ node, onChange, path, errors }: { node: DraftTrait; onChange: (n: DraftTrait) => void; path: string; errors: ConditionErrors }) {
  const unary = UNARY_OPERATORS.includes(node.op);
  const traitErr = errorAt(errors, `${path}.trait`);
  const valueErr = errorAt(errors, `${path}.value`);
  return (
    <div className="flex-1">
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Trait</span>
        <input aria-label="Trait name" aria-invalid={!!traitErr} placeholder="plan" className={`${small} w-40`} value={node.trait} onChange={(e) => onChange({ ...node, trait: e.target.value })} />
        <OperatorSelect label="Trait operator" value={node.op} onChange={(op) => onChange({ ...node, op })} />
        {!unary ? (
          <input aria-label="Trait value" aria-invalid={!!valueErr} placeholder="pro" className={`${small} w-40`} value={node.value} onChange={(e) => onChange({ ...node, value: e.target.value })} />
        ) : null}
      </div>
      <FieldError message={traitErr ?? valueErr} />
    </div>
  );
}

function FilterRow({ f, onChange, onRemove, path, errors }: { f: DraftFilter; onChange: (f: DraftFilter) => void; onRemove: () => void; path: string; errors: ConditionErrors }) {
  const unary = UNARY_OPERATORS.includes(f.op);
  return (
    <div>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs text-slate-500">where property</span>
        <input aria-label="Property name" placeholder="total" className={`${small} w-32`} value={f.property} onChange={(e) => onChange({ ...f, property: e.target.value })} />
        <OperatorSelect label="Property operator" value={f.op} onChange={(op) => onChange({ ...f, op })} />
        {!unary ? <input aria-label="Property value" placeholder="100" className={`${small} w-28`} value={f.value} onChange={(e) => onChange({ ...f, value: e.target.value })} /> : null}
        <Button variant="ghost" aria-label="Remove property filter" onClick={onRemove}>
          ✕
        </Button>
      </div>
      <FieldError message={errorAt(errors, `${path}.property`) ?? errorAt(errors, `${path}.value`)} />
    </div>
  );
}

function EventRow({ node, onChange, path, errors }: { node: DraftEvent; onChange: (n: DraftEvent) => void; path: string; errors: ConditionErrors }) {
  const err = errorAt(errors, `${path}.event`) ?? errorAt(errors, `${path}.atLeast`) ?? errorAt(errors, `${path}.withinDays`);
  return (
    <div className="flex-1 space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Performed</span>
        <input aria-label="Event name" placeholder="Order Completed" className={`${small} w-48`} value={node.event} onChange={(e) => onChange({ ...node, event: e.target.value })} />
        <span className="text-sm text-slate-600">at least</span>
        <input aria-label="At least" inputMode="numeric" className={`${small} w-16`} value={node.atLeast} onChange={(e) => onChange({ ...node, atLeast: e.target.value })} />
        <span className="text-sm text-slate-600">times in the last</span>
        <input aria-label="Within days" inputMode="numeric" className={`${small} w-16`} value={node.withinDays} onChange={(e) => onChange({ ...node, withinDays: e.target.value })} />
        <span className="text-sm text-slate-600">days</span>
      </div>
      <FieldError message={err} />
      <div className="space-y-2 pl-4">
        {node.where.map((f, i) => (
          <FilterRow
            key={f.key}
            f={f}
            path={`${path}.where.${i}`}
            errors={errors}
            onChange={(nf) => onChange({ ...node, where: node.where.map((x) => (x.key === f.key ? nf : x)) })}
            onRemove={() => onChange({ ...node, where: node.where.filter((x) => x.key !== f.key) })}
          />
        ))}
        <button type="button" className="text-xs font-medium text-indigo-600 hover:underline" onClick={() => onChange({ ...node, where: [...node.where, newFilter()] })}>
          + property filter
        </button>
      </div>
    </div>
  );
}

/** One AND/OR group: its rows, nested groups, and the buttons that add to it. */
export function GroupEditor({
  group,
  onChange,
  onRemove,
  depth = 0,
  path = "",
  errors,
}: {
  group: DraftGroup;
  onChange: (g: DraftGroup) => void;
  onRemove?: () => void;
  depth?: number;
  path?: string;
  errors: ConditionErrors;
}) {
  const childPath = (i: number) => `${path ? `${path}.` : ""}${group.match}.${i}`;
  const replace = (key: string, n: DraftNode) => onChange({ ...group, children: group.children.map((c) => (c.key === key ? n : c)) });
  const remove = (key: string) => onChange({ ...group, children: group.children.filter((c) => c.key !== key) });
  const add = (n: DraftNode) => onChange({ ...group, children: [...group.children, n] });
  const groupError = errorAt(errors, `${path ? `${path}.` : ""}${group.match}`) ?? (depth === 0 ? errorAt(errors, "_") : undefined);
  return (
    <div role="group" aria-label={depth === 0 ? "Conditions" : "Condition group"} className={`space-y-3 rounded-md p-3 ring-1 ${depth % 2 ? "bg-slate-50 ring-slate-200" : "bg-white ring-slate-200"}`}>
      <div className="flex items-center justify-between gap-2">
        <label className="flex items-center gap-2 text-sm text-slate-700">
          Match
          <select aria-label="Match" className={small} value={group.match} onChange={(e) => onChange({ ...group, match: e.target.value as "all" | "any" })}>
            <option value="all">all (AND)</option>
            <option value="any">any (OR)</option>
          </select>
          of these conditions
        </label>
        {onRemove ? (
          <Button variant="ghost" aria-label="Remove group" onClick={onRemove}>
            Remove group
          </Button>
        ) : null}
      </div>
      <FieldError message={groupError} />
      {group.children.map((child, i) => (
        <div key={child.key} className="flex items-start gap-2">
          {i > 0 ? <span className="mt-1.5 w-9 shrink-0 text-xs font-semibold text-indigo-600">{group.match === "all" ? "AND" : "OR"}</span> : <span className="w-9 shrink-0" />}
          {child.kind === "group" ? (
            <div className="flex-1">
              <GroupEditor group={child} depth={depth + 1} path={childPath(i)} errors={errors} onChange={(g) => replace(child.key, g)} onRemove={() => remove(child.key)} />
            </div>
          ) : (
            <>
              {child.kind === "trait" ? (
                <TraitRow node={child} path={childPath(i)} errors={errors} onChange={(n) => replace(child.key, n)} />
              ) : (
                <EventRow node={child} path={childPath(i)} errors={errors} onChange={(n) => replace(child.key, n)} />
              )}
              <Button variant="ghost" aria-label="Remove condition" onClick={() => remove(child.key)}>
                ✕
              </Button>
            </>
          )}
        </div>
      ))}
      <div className="flex flex-wrap gap-2 pl-11">
        <Button variant="secondary" onClick={() => add(newTrait())}>
          + Trait condition
        </Button>
        <Button variant="secondary" onClick={() => add(newEvent())}>
          + Event condition
        </Button>
        {depth + 1 < MAX_DEPTH ? (
          <Button variant="secondary" onClick={() => add(newGroup(group.match === "all" ? "any" : "all"))}>
            + Group
          </Button>
        ) : null}
      </div>
    </div>
  );
}
