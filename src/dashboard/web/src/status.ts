/** Task status colours: a light background with dark text of the same hue, so the text passes WCAG AA contrast. */
export const STATUSES = ['PENDING', 'READY', 'IN_PROGRESS', 'VALIDATING', 'RETRYING', 'COMPLETED', 'FAILED'] as const;
export type TaskStatus = (typeof STATUSES)[number];

export const STATUS_STYLE: Record<string, { bg: string; fg: string; border: string }> = {
  PENDING: { bg: '#f1f3f5', fg: '#495057', border: '#adb5bd' },
  READY: { bg: '#e7f1ff', fg: '#0b4f9c', border: '#4c8fe0' },
  IN_PROGRESS: { bg: '#fff4d6', fg: '#7a5200', border: '#e0a800' },
  VALIDATING: { bg: '#f1e8ff', fg: '#5a2ca0', border: '#9b6ddc' },
  RETRYING: { bg: '#ffe9d9', fg: '#8a3b00', border: '#f08c3c' },
  COMPLETED: { bg: '#e3f6e8', fg: '#1b6b35', border: '#40a861' },
  FAILED: { bg: '#fde8e8', fg: '#a3161b', border: '#e5484d' },
};

export function statusLabel(s: string): string {
  return s.replace('_', ' ');
}
