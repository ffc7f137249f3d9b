import type { DependencyContainer } from 'tsyringe';
import type { ChangeReacher } from './change-reach';
import { Tokens } from './tokens';

/** The change reachers the container's modules registered (none when no module publishes changes). */
export function changeReachersIn(c: DependencyContainer): readonly ChangeReacher[] {
  return c.isRegistered(Tokens.ChangeReachers, true) ? c.resolveAll<ChangeReacher>(Tokens.ChangeReachers) : [];
}
