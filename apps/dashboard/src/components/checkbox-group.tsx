import { useId, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';

/** A fieldset of checkboxes with its legend, and its error tied to it for assistive technology. */
export function CheckboxGroup({
  legend,
  error,
  children,
}: {
  legend: string;
  /** What is wrong with the choice, as a whole. */
  error?: string;
  children: ReactNode;
}) {
  const errorId = `${useId()}-error`;
  return (
    <fieldset className="fieldset" aria-describedby={error ? errorId : undefined}>
      <legend>{legend}</legend>
      {children}
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

/**
 * One checkbox of a group: its label beside it, and a hint under the label if it has one. Boxes of
 * one `name` with a `value` each make a list of the values checked (react-hook-form's `register`).
 */
export function Checkbox({
  label,
  hint,
  invalid,
  ref,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'id'> & {
  label: ReactNode;
  hint?: string;
  /** The group's choice is wrong (its error says why). */
  invalid?: boolean;
  ref?: Ref<HTMLInputElement>;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const labelled = <label htmlFor={id}>{label}</label>;
  return (
    <div className="checkbox">
      <input
        {...input}
        ref={ref}
        type="checkbox"
        id={id}
        aria-describedby={hint ? hintId : undefined}
        aria-invalid={invalid ? true : undefined}
      />
      {hint ? (
        <div>
          {labelled}
          <p className="field-hint" id={hintId}>
            {hint}
          </p>
        </div>
      ) : (
        labelled
      )}
    </div>
  );
}

/**
 * The checkboxes of one field that is a list (react-hook-form's `register` of it), one per choice:
 * the values of those checked make the list.
 */
export function Checkboxes({
  choices,
  invalid,
  ...field
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'id' | 'value'> & {
  choices: readonly { value: string; label: ReactNode; hint?: string }[];
  invalid?: boolean;
  ref?: Ref<HTMLInputElement>;
}) {
  return choices.map(({ value, label, hint }) => (
    <Checkbox key={value} {...field} value={value} label={label} hint={hint} invalid={invalid} />
  ));
}
