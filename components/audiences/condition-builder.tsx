"use client";

import { MAX_DEPTH, OPERATORS, UNARY_OPERATORS, type Operator } from "@/lib/audiences/condition";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import {
  newEvent,
  newFilter,
  newGroup,
  newTrait,
  type DraftEvent,
  type DraftFilter,
  type DraftGroup,
  type DraftNode,
  type DraftTrait,
} from "./draft";

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

/** A row's error, announced and linked to its inputs (they name it in aria-describedby). */
function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} role="alert" className="text-xs text-red-600">
      {message}
    </p>
  ) : null;
}

/** The error's id for a condition path ("all.1" → "cond-all-1-error"). */
const errorIdOf = (path: string) => `cond-${path.replace(/\./g, "-") || "root"}-error`;
const invalid = (message: string | undefined, path: string) =>
  message ? { "aria-invalid": true as const, "aria-describedby": errorIdOf(path) } : {};

function TraitRow({
  node,
  onChange,
  path,
  errors,
}: {
  node: DraftTrait;
  onChange: (n: DraftTrait) => void;
  path: string;
  errors: ConditionErrors;
}) {
  const unary = UNARY_OPERATORS.includes(node.op);
  const traitErr = errorAt(errors, `${path}.trait`);
  const valueErr = errorAt(errors, `${path}.value`);
  return (
    <div className="flex-1">
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Trait</span>
        <input
          aria-label="Trait name"
          {...invalid(traitErr, path)}
          placeholder="plan"
          className={`${small} w-40`}
          value={node.trait}
          onChange={(e) => onChange({ ...node, trait: e.target.value })}
        />
        <OperatorSelect label="Trait operator" value={node.op} onChange={(op) => onChange({ ...node, op })} />
        {!unary ? (
          <input
            aria-label="Trait value"
            {...invalid(valueErr, path)}
            placeholder="pro"
            className={`${small} w-40`}
            value={node.value}
            onChange={(e) => onChange({ ...node, value: e.target.value })}
          />
        ) : null}
      </div>
      <FieldError id={errorIdOf(path)} message={traitErr ?? valueErr} />
    </div>
  );
}

function FilterRow({
  f,
  onChange,
  onRemove,
  path,
  errors,
}: {
  f: DraftFilter;
  onChange: (f: DraftFilter) => void;
  onRemove: () => void;
  path: string;
  errors: ConditionErrors;
}) {
  const unary = UNARY_OPERATORS.includes(f.op);
  const propertyErr = errorAt(errors, `${path}.property`);
  const valueErr = errorAt(errors, `${path}.value`);
  return (
    <div>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs text-slate-500">where property</span>
        <input
          aria-label="Property name"
          {...invalid(propertyErr, path)}
          placeholder="total"
          className={`${small} w-32`}
          value={f.property}
          onChange={(e) => onChange({ ...f, property: e.target.value })}
        />
        <OperatorSelect label="Property operator" value={f.op} onChange={(op) => onChange({ ...f, op })} />
        {!unary ? (
          <input
            aria-label="Property value"
            {...invalid(valueErr, path)}
            placeholder="100"
            className={`${small} w-28`}
            value={f.value}
            onChange={(e) => onChange({ ...f, value: e.target.value })}
          />
        ) : null}
        <Button variant="ghost" aria-label="Remove property filter" onClick={onRemove}>
          ✕
        </Button>
      </div>
      <FieldError id={errorIdOf(path)} message={propertyErr ?? valueErr} />
    </div>
  );
}

function EventRow({
  node,
  onChange,
  path,
  errors,
}: {
  node: DraftEvent;
  onChange: (n: DraftEvent) => void;
  path: string;
  errors: ConditionErrors;
}) {
  const eventErr = errorAt(errors, `${path}.event`);
  const atLeastErr = errorAt(errors, `${path}.atLeast`);
  const withinErr = errorAt(errors, `${path}.withinDays`);
  const err = eventErr ?? atLeastErr ?? withinErr;
  return (
    <div className="flex-1 space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Performed</span>
        <input
          aria-label="Event name"
          {...invalid(eventErr, path)}
          placeholder="Order Completed"
          className={`${small} w-48`}
          value={node.event}
          onChange={(e) => onChange({ ...node, event: e.target.value })}
        />
        <span className="text-sm text-slate-600">at least</span>
        <input
          aria-label="At least"
          inputMode="numeric"
          {...invalid(atLeastErr, path)}
          className={`${small} w-16`}
          value={node.atLeast}
          onChange={(e) => onChange({ ...node, atLeast: e.target.value })}
        />
        <span className="text-sm text-slate-600">times in the last</span>
        <input
          aria-label="Within days"
          inputMode="numeric"
          {...invalid(withinErr, path)}
          className={`${small} w-16`}
          value={node.withinDays}
          onChange={(e) => onChange({ ...node, withinDays: e.target.value })}
        />
        <span className="text-sm text-slate-600">days</span>
      </div>
      <FieldError id={errorIdOf(path)} message={err} />
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
        <button
          type="button"
          className="text-xs font-medium text-indigo-600 hover:underline"
          onClick={() => onChange({ ...node, where: [...node.where, newFilter()] })}
        >
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
    <fieldset
      aria-label={depth === 0 ? "Conditions" : "Condition group"}
      className={`min-w-0 space-y-3 rounded-md p-3 ring-1 ${depth % 2 ? "bg-slate-50 ring-slate-200" : "bg-white ring-slate-200"}`}
    >
      <div className="flex items-center justify-between gap-2">
        <label className="flex items-center gap-2 text-sm text-slate-700">
          Match
          <select
            aria-label="Match"
            className={small}
            value={group.match}
            onChange={(e) => onChange({ ...group, match: e.target.value as "all" | "any" })}
          >
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
      <FieldError id={errorIdOf(`${path}-group`)} message={groupError} />
      {group.children.map((child, i) => (
        <div key={child.key} className="flex items-start gap-2">
          {i > 0 ? (
            <span className="mt-1.5 w-9 shrink-0 text-xs font-semibold text-indigo-600">{group.match === "all" ? "AND" : "OR"}</span>
          ) : (
            <span className="w-9 shrink-0" />
          )}
          {child.kind === "group" ? (
            <div className="flex-1">
              <GroupEditor
                group={child}
                depth={depth + 1}
                path={childPath(i)}
                errors={errors}
                onChange={(g) => replace(child.key, g)}
                onRemove={() => remove(child.key)}
              />
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
    </fieldset>
  );
}
