import { useState } from 'react';
import { TextField, type TextFieldProps } from './text-field';

/** A password input with a button that shows what was typed, and hides it again. */
export function PasswordField(props: Omit<TextFieldProps, 'type' | 'addon'>) {
  const [shown, setShown] = useState(false);
  return (
    <TextField
      {...props}
      type={shown ? 'text' : 'password'}
      spellCheck={false}
      autoCapitalize="off"
      addon={
        <button
          type="button"
          className="button button-secondary field-toggle"
          aria-label={`${shown ? 'Hide' : 'Show'} ${props.label.toLowerCase()}`}
          onClick={() => setShown((value) => !value)}
        >
          {shown ? 'Hide' : 'Show'}
        </button>
      }
    />
  );
}

/** The email input of the sign-up and sign-in forms. */
export function EmailField(props: Omit<TextFieldProps, 'type' | 'label' | 'name'>) {
  return (
    <TextField label="Email" name="email" type="email" autoComplete="email" required {...props} />
  );
}
