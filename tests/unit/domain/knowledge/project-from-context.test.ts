import { projectIdFromContext, projectNameFromContext } from '../../../../src/modules/knowledge/domain/project-from-context';
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
});
