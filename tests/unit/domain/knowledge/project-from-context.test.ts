import { normalizePathKey, projectIdentity, projectIdFromContext, projectNameFromContext } from '../../../../src/modules/knowledge/domain/project-from-context';
import { InvalidArgumentsError } from '../../../../src/kernel/errors';

describe('project from projectContext', () => {
  it.each([
    ['/a/b/', 'b'],
    ['/a/b', 'b'],
    ['C:\\work\\app\\', 'app'],
    ['C:\\work\\app', 'app'],
    ['C:/work/app//', 'app'],
    ['\\\\server\\share\\repo\\', 'repo'],
    ['app', 'app'],
    ['  /home/me/My App/ ', 'My App'],
    ['/a/b/./', 'b'],
  ])('%s → %s', (ctx, name) => {
    expect(projectNameFromContext(ctx)).toBe(name);
  });

  it('makes a safe project id of the last segment', () => {
    expect(projectIdFromContext('C:\\work\\My App_v2\\')).toBe('my-app-v2');
    expect(projectIdFromContext('/srv/Café/')).toBe('cafe');
  });

  it.each(['', '/', '\\', 'C:\\', 'C:', '/a/..', '///'])('refuses %j naming the field', (ctx) => {
    expect(() => projectIdFromContext(ctx)).toThrow(InvalidArgumentsError);
    expect(() => projectIdFromContext(ctx)).toThrow(/projectContext/);
  });

  it('refuses NUL bytes and names without letters or digits', () => {
    expect(() => projectIdFromContext('/a/b\0c')).toThrow(/NUL/);
    expect(() => projectIdFromContext('/a/---/')).toThrow(/no letters or digits/);
  });

  it.each([
    ['/home/me/work/app/', '/home/me/work/app'],
    ['/home//me/./work/../work/app', '/home/me/work/app'],
    ['C:\\Work\\app\\', 'c:/Work/app'],
    ['c:/Work/./app', 'c:/Work/app'],
    ['\\\\server\\share\\repo\\', '//server/share/repo'],
    ['work/app/', 'work/app'],
    ['../x/app', '../x/app'],
  ])('normalizes the path %s → %s', (p, key) => {
    expect(normalizePathKey(p)).toBe(key);
  });

  it('a bare name is its slug; a path has a readable alternative id unique to its folder', () => {
    expect(projectIdentity('My App')).toEqual({ name: 'My App', id: 'my-app', pathKey: null, altId: null });
    const work = projectIdentity('/home/me/work/app');
    const other = projectIdentity('/home/me/other/app');
    expect(work.id).toBe('app');
    expect(other.id).toBe('app');
    expect(work.altId).toMatch(/^app-[0-9a-f]{8}$/);
    expect(other.altId).toMatch(/^app-[0-9a-f]{8}$/);
    expect(work.altId).not.toBe(other.altId);
    // One folder written two ways is one project.
    expect(projectIdentity('/home/me/work/./app/').altId).toBe(work.altId);
  });
});
