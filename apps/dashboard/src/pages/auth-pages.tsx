import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@tanstack/react-router';
import type { ComponentProps, ReactNode } from 'react';
import { useForm, type FieldValues } from 'react-hook-form';
import { z } from 'zod';
import { ApiError } from '../api';
import { CheckedForm } from '../components/checked-form';
import { EmailField, NameField, PasswordField } from '../components/fields';
import { fieldsOf, sending } from '../forms';
import { useSession } from '../session';

// Signed in, the router takes the browser on from these pages (src/router.tsx).

const MIN_PASSWORD = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A page of one form, its fields as `children`, on a card of its own. */
function AuthPage<T extends FieldValues, C, O>({
  title,
  intro,
  footer,
  children,
  ...form
}: {
  title: string;
  intro: string;
  footer: ReactNode;
  children: ReactNode;
} & Pick<ComponentProps<typeof CheckedForm<T, C, O>>, 'form' | 'onSubmit'> & {
    submit: { label: string; busyLabel: string };
  }) {
  return (
    <main id="main" className="auth">
      <div className="auth-card">
        <p className="brand brand-large" aria-hidden="true">
          Boxoffice
        </p>
        <h1 tabIndex={-1} data-page-heading>
          {title}
        </h1>
        <p className="muted">{intro}</p>
        <CheckedForm
          {...form}
          submit={{ ...form.submit, className: 'button button-primary button-block' }}
        >
          {children}
        </CheckedForm>
        <p className="auth-footer">{footer}</p>
        <p className="auth-docs muted">
          Building on the API? Read the <a href="/docs">API reference</a>.
        </p>
      </div>
    </main>
  );
}

/** A field the server found wrong gets the focus, as one found wrong here does. */
const focus = { shouldFocus: true };

/** The server's message, as a sentence (`password is…` → `Password is…`). */
const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

const SignUpFormSchema = z.object({
  organisation_name: z.string().trim().min(1, 'Enter your organisation’s name.'),
  email: z.string().trim().regex(EMAIL, 'Enter an email address like name@example.com.'),
  password: z.string().min(MIN_PASSWORD, `Use at least ${MIN_PASSWORD} characters.`),
});

export function SignUpPage() {
  const { signUp } = useSession();
  const form = useForm({
    resolver: zodResolver(SignUpFormSchema),
    defaultValues: { organisation_name: '', email: '', password: '' },
  });
  const { setError, formState } = form;
  const field = fieldsOf(form);

  // A password the server finds too easy to guess is a problem of that field: say so there; so is
  // an email that already has an account, with the way to it.
  const submit = form.handleSubmit(
    sending(setError, signUp, (error) => {
      if (!(error instanceof ApiError)) return false;
      if (error.code === 'weak_password') {
        setError('password', { type: error.code, message: sentence(error.message) }, focus);
      } else if (error.code === 'email_taken') {
        setError('email', { type: error.code, message: error.message }, focus);
      } else return false;
      return true;
    }),
  );

  return (
    <AuthPage
      title="Create your organisation"
      intro="Start on the Free plan: generate API keys now, and upgrade to Pro when you are ready to use them."
      footer={
        <>
          Already have an account? <Link to="/signin">Sign in</Link>
        </>
      }
      form={form}
      onSubmit={submit}
      submit={{ label: 'Create organisation', busyLabel: 'Creating organisation…' }}
    >
      <NameField
        label="Organisation name"
        autoComplete="organization"
        {...field('organisation_name')}
      />
      <EmailField
        {...field('email')}
        error={
          formState.errors.email?.type === 'email_taken' ? (
            <>
              An account with this email already exists. <Link to="/signin">Sign in instead</Link>.
            </>
          ) : (
            formState.errors.email?.message
          )
        }
      />
      <PasswordField
        autoComplete="new-password"
        hint={`At least ${MIN_PASSWORD} characters and hard to guess: a few uncommon words work well.`}
        {...field('password')}
        minLength={MIN_PASSWORD}
        maxLength={200}
      />
    </AuthPage>
  );
}

const SignInFormSchema = z.object({
  email: z.string().trim().regex(EMAIL, 'Enter the email address you signed up with.'),
  password: z.string().min(1, 'Enter your password.'),
});

export function SignInPage() {
  const { signIn } = useSession();
  const form = useForm({
    resolver: zodResolver(SignInFormSchema),
    defaultValues: { email: '', password: '' },
  });
  const field = fieldsOf(form);

  const submit = form.handleSubmit(
    sending(form.setError, signIn, (error) => {
      // A refused password is not kept: type it again from an empty field.
      if (error instanceof ApiError && error.status === 401) {
        form.setValue('password', '');
        form.setFocus('password');
      }
      return false;
    }),
  );

  return (
    <AuthPage
      title="Sign in"
      intro="Manage your organisation’s API keys and plan."
      footer={
        <>
          New to Boxoffice? <Link to="/signup">Create an organisation</Link>
        </>
      }
      form={form}
      onSubmit={submit}
      submit={{ label: 'Sign in', busyLabel: 'Signing in…' }}
    >
      <EmailField {...field('email')} />
      <PasswordField autoComplete="current-password" {...field('password')} />
    </AuthPage>
  );
}
