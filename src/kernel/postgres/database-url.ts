/**
 * PostgreSQL connection URLs as users give them (`postgres://user:password@host:5432/db?sslmode=require`), and their
 * redacted form: the password never appears in logs, errors or answers.
 */

/** The URL with its password replaced by `***` (and any `password=` query parameter too). */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@').replace(/password=[^&\s]*/gi, 'password=***');
  }
}

/** Removes every occurrence of the URL's password from a message (driver errors sometimes echo connection strings). */
export function scrubSecret(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    /* not a URL: nothing to scrub but the URL itself */
  }
  let out = message.split(url).join(redactDatabaseUrl(url));
  if (password) out = out.split(password).join('***');
  return out;
}

/** True when the string looks like a PostgreSQL URL (postgres:// or postgresql://). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
