import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { ApiError } from '../api';
import { BusyButton } from '../components/busy-button';
import { ErrorMessage } from '../components/feedback';
import { EmailField, NameField, PasswordField } from '../components/fields';
import { setRefused, submitOnce } from '../forms';
import { useSession } from '../session';

// Signed in, the router takes the browser on from these pages (src/router.tsx).

const MIN_PASSWORD = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function AuthLayout({
  title,
  intro,
  children,
  footer,
}: {
  title: string;
  intro: string;
  children: ReactNode;
  footer: ReactNode;
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
        {children}
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
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(SignUpFormSchema),
    defaultValues: { organisation_name: '', email: '', password: '' },
  });

  const submit = handleSubmit(async (values) => {
    try {
      await signUp(values);
    } catch (error) {
      // A password the server finds too easy to guess is a problem of that field: say so there;
      // so is an email that already has an account, with the way to it.
      if (error instanceof ApiError && error.code === 'weak_password') {
        setError('password', { type: error.code, message: sentence(error.message) }, focus);
      } else if (error instanceof ApiError && error.code === 'email_taken') {
        setError('email', { type: error.code, message: error.message }, focus);
      } else setRefused(setError, error);
    }
  });

  return (
    <AuthLayout
      title="Create your organisation"
      intro="Start on the Free plan: generate API keys now, and upgrade to Pro when you are ready to use them."
      footer={
        <>
          Already have an account? <Link to="/signin">Sign in</Link>
        </>
      }
    >
      <form
        onSubmit={submitOnce(submit, { submitting: isSubmitting })}
        noValidate
        aria-busy={isSubmitting}
      >
        <NameField
          label="Organisation name"
          autoComplete="organization"
          {...register('organisation_name')}
          error={errors.organisation_name?.message}
        />
        <EmailField
          {...register('email')}
          error={
            errors.email?.type === 'email_taken' ? (
              <>
                An account with this email already exists. <Link to="/signin">Sign in instead</Link>
                .
              </>
            ) : (
              errors.email?.message
            )
          }
        />
        <PasswordField
          autoComplete="new-password"
          hint={`At least ${MIN_PASSWORD} characters and hard to guess: a few uncommon words work well.`}
          {...register('password')}
          error={errors.password?.message}
          minLength={MIN_PASSWORD}
          maxLength={200}
        />
        {errors.root?.server?.message && <ErrorMessage message={errors.root.server.message} />}
        <BusyButton
          type="submit"
          className="button button-primary button-block"
          busy={isSubmitting}
          busyLabel="Creating organisation…"
        >
          Create organisation
        </BusyButton>
      </form>
    </AuthLayout>
  );
}

const SignInFormSchema = z.object({
  email: z.string().trim().regex(EMAIL, 'Enter the email address you signed up with.'),
  password: z.string().min(1, 'Enter your password.'),
});

export function SignInPage() {
  const { signIn } = useSession();
  const {
    register,
    handleSubmit,
    setError,
    setValue,
    setFocus,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(SignInFormSchema),
    defaultValues: { email: '', password: '' },
  });

  const submit = handleSubmit(async (values) => {
    try {
      await signIn(values);
    } catch (error) {
      // A refused password is not kept: type it again from an empty field.
      if (error instanceof ApiError && error.status === 401) {
        setValue('password', '');
        setFocus('password');
      }
      setRefused(setError, error);
    }
  });

  return (
    <AuthLayout
      title="Sign in"
      intro="Manage your organisation’s API keys and plan."
      footer={
        <>
          New to Boxoffice? <Link to="/signup">Create an organisation</Link>
        </>
      }
    >
      <form
        onSubmit={submitOnce(submit, { submitting: isSubmitting })}
        noValidate
        aria-busy={isSubmitting}
      >
        <EmailField {...register('email')} error={errors.email?.message} />
        <PasswordField
          autoComplete="current-password"
          {...register('password')}
          error={errors.password?.message}
        />
        {errors.root?.server?.message && <ErrorMessage message={errors.root.server.message} />}
        <BusyButton
          type="submit"
          className="button button-primary button-block"
          busy={isSubmitting}
          busyLabel="Signing in…"
        >
          Sign in
        </BusyButton>
      </form>
    </AuthLayout>
  );
}
