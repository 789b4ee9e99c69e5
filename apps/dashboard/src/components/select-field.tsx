import type { ApiKey } from '@boxoffice/dashboard-contract';
import { useId, type Ref, type SelectHTMLAttributes } from 'react';

/** An option: its value, shown as it is, or a value and the label shown for it. */
export type Choice = string | { value: string; label: string };

export type SelectFieldProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'children'> & {
  label: string;
  /** The label of the first option, the empty value: no choice (“Any”); none, no such option. */
  none?: string;
  choices: readonly Choice[];
  error?: string;
  ref?: Ref<HTMLSelectElement>;
};

/** A labelled `<select>`, with its error tied to it for assistive technology. */
export function SelectField({ label, none, choices, error, ref, ...select }: SelectFieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        {...select}
        ref={ref}
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      >
        {none !== undefined && <option value="">{none}</option>}
        {choices.map((choice) => {
          const { value, label } =
            typeof choice === 'string' ? { value: choice, label: choice } : choice;
          return (
            <option key={value} value={value}>
              {label}
            </option>
          );
        })}
      </select>
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The choice of one of the organisation's keys, by its name and hint. */
export function KeyField({
  keys,
  ...select
}: Omit<SelectFieldProps, 'label' | 'choices'> & { keys: ApiKey[] }) {
  return (
    <SelectField
      label="Key"
      choices={keys.map((key) => ({ value: key.id, label: `${key.name} (${key.hint})` }))}
      {...select}
    />
  );
}
