/** Hash routing: `#/tasks/my-app` etc. Small enough not to need a router library. */
import { useEffect, useState } from 'react';

export function currentRoute(): string[] {
  const hash = window.location.hash.replace(/^#\/?/, '');
  return hash.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function href(...segments: string[]): string {
  return '#/' + segments.map((s) => encodeURIComponent(s)).join('/');
}
