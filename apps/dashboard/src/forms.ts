import type { FormEvent } from 'react';
import {
  type FieldValues,
  type Path,
  type UseFormReturn,
  type UseFormSetError,
} from 'react-hook-form';
import { ApiError, describeError } from './api';

/**
 * The forms that check what is typed (react-hook-form, each with a zod schema of its fields and
 * the messages to show at them) keep a request the server refused as the form's own error, under
 * `root.server`: shown above the button, it goes at the next submit.
 */
export function setRefused<T extends FieldValues>(setError: UseFormSetError<T>, error: unknown) {
  setError('root.server', {
    type: error instanceof ApiError ? String(error.status) : 'unsent',
    message: describeError(error),
  });
}

/**
 * What `handleSubmit` runs for a form that sends a request: a refusal becomes the form's own error
 * (`setRefused`) unless `atField` shows it at a field (and says so by returning true).
 */
export function sending<T extends FieldValues, V>(
  setError: UseFormSetError<T>,
  send: (values: V) => Promise<void>,
  atField?: (error: unknown) => boolean,
) {
  return async (values: V) => {
    try {
      await send(values);
    } catch (error) {
      if (!atField?.(error)) setRefused(setError, error);
    }
  };
}

/**
 * A field's props for TextField and its kin: react-hook-form's `register` of `name`, and the
 * message of what is wrong with its value as `error`.
 */
export function fieldsOf<T extends FieldValues, C, O>({
  register,
  getFieldState,
  formState,
}: UseFormReturn<T, C, O>) {
  return (name: Path<T>) => ({
    ...register(name),
    error: getFieldState(name, formState).error?.message,
  });
}

/**
 * The form's `onSubmit`: `submit` (react-hook-form's `handleSubmit`), unless a submission is under
 * way or the form is `closed` for now. A busy button stays focusable (`aria-disabled`), so a
 * second press reaches the form, and must not send it twice.
 */
export function submitOnce(
  submit: (event: FormEvent<HTMLFormElement>) => Promise<void>,
  { submitting, closed = false }: { submitting: boolean; closed?: boolean },
) {
  return (event: FormEvent<HTMLFormElement>) => {
    if (submitting || closed) event.preventDefault();
    else void submit(event);
  };
}
