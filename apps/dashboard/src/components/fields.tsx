import { useState } from 'react';
import { TextField, type TextFieldProps } from './text-field';

/** A password input with a button that shows what was typed, and hides it again. */
export function PasswordField({
  label = 'Password',
  ...props
}: Omit<TextFieldProps, 'type' | 'addon' | 'label'> & { label?: string }) {
  const [shown, setShown] = useState(false);
  return (
    <TextField
      name="password"
      required
      label={label}
      {...props}
      type={shown ? 'text' : 'password'}
      spellCheck={false}
      autoCapitalize="off"
      addon={
        <button
          type="button"
          className="button button-secondary field-toggle"
          aria-label={`${shown ? 'Hide' : 'Show'} ${label.toLowerCase()}`}
          onClick={() => setShown((value) => !value)}
        >
          {shown ? 'Hide' : 'Show'}
        </button>
      }
    />
  );
}

/** A name the user gives (an organisation's, a key's): required, as long as the server takes. */
export function NameField(props: Omit<TextFieldProps, 'maxLength' | 'required'>) {
  return <TextField autoComplete="off" {...props} maxLength={100} required />;
}

/** The email input of the sign-up and sign-in forms. */
export function EmailField(props: Omit<TextFieldProps, 'type' | 'label'>) {
  return (
    <TextField label="Email" name="email" type="email" autoComplete="email" required {...props} />
  );
}
