import path from 'node:path';
import express from 'express';

/** How long a content-hashed file may be kept: its name changes whenever its content does. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A bundler's content-hashed name (`index-DBMxm7tp.js`, `index-CQ5IjQxA.css`, their maps). */
const HASHED_NAME = /-[A-Za-z0-9_-]{8}\.[a-z0-9]+(?:\.map)?$/;

type StaticOptions = Parameters<typeof express.static>[1];

/**
 * A build's files from `dir`: those under `hashedDir` with a content-hashed name are kept for a
 * year; everything else (a page, an entry module) is revalidated on every use, so a deploy is
 * seen at once and no stale page asks for files the new build no longer has.
 */
export function staticFiles(
  dir: string,
  options: Omit<NonNullable<StaticOptions>, 'maxAge' | 'cacheControl' | 'setHeaders'> & {
    hashedDir: string;
  },
): express.RequestHandler {
  const { hashedDir, ...rest } = options;
  const hashedRoot = path.join(dir, hashedDir) + path.sep;
  return express.static(dir, {
    ...rest,
    cacheControl: false,
    setHeaders: (res, file) => {
      const hashed = file.startsWith(hashedRoot) && HASHED_NAME.test(path.basename(file));
      res.setHeader('Cache-Control', hashed ? IMMUTABLE : 'no-cache');
    },
  });
}
