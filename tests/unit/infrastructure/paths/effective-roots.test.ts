import { effectiveRoots, identityEffectiveRoots } from '../../../../src/kernel/files/effective-roots';

const DEFAULTS = ['/home/me', '/tmp'];

describe('effectiveRoots (operator roots narrowed by client roots)', () => {
  it.each([
    ['no roots at all: the defaults', [], undefined, DEFAULTS],
    ['client roots without operator roots stand', [], ['/srv/a', '/'], ['/']],
    ['an empty client list is no client roots', ['/srv'], [], ['/srv']],
    ['operator roots without client roots', ['/srv/a', '/srv/b'], undefined, ['/srv/a', '/srv/b']],
    ['the client root "/" does not widen', ['/srv/a'], ['/'], ['/srv/a']],
    ['a client root inside narrows', ['/srv'], ['/srv/a/x', '/etc'], ['/srv/a/x']],
    ['a disjoint client root leaves nothing', ['/srv/a'], ['/srv/b', '/etc'], []],
    ['a sibling with a common prefix is not inside', ['/srv/a'], ['/srv/ab'], []],
    ['several of each: every overlap', ['/srv/a', '/opt'], ['/srv', '/opt/x', '/opt/y'], ['/srv/a', '/opt/x', '/opt/y']],
    ['duplicates and nested results collapse', ['/srv', '/srv/a'], ['/srv/a', '/srv/a/b'], ['/srv/a']],
  ])('%s', (_name, operator, client, expected) => {
    expect(effectiveRoots(operator, client, DEFAULTS)).toEqual(expected);
  });
});

describe('identityEffectiveRoots (a token line\'s roots=)', () => {
  const defaults = ['/home/me', '/tmp'];
  it('no identity roots: the roots in force as they are', () => {
    expect(identityEffectiveRoots(['/srv'], undefined, defaults, undefined)).toEqual(['/srv']);
    expect(identityEffectiveRoots([], undefined, defaults, undefined)).toEqual(defaults);
  });
  it('narrows the operator roots, never widens them', () => {
    expect(identityEffectiveRoots(['/srv'], undefined, defaults, ['/srv/a', '/etc'])).toEqual(['/srv/a']);
    expect(identityEffectiveRoots(['/srv/a'], undefined, defaults, ['/srv'])).toEqual(['/srv/a']);
  });
  it('roots that overlap none give none: never the defaults', () => {
    expect(identityEffectiveRoots(['/srv'], undefined, defaults, ['/etc'])).toEqual([]);
    expect(identityEffectiveRoots(['/srv'], ['/srv/a'], defaults, ['/srv/b'])).toEqual([]);
  });
  it('without operator roots the identity roots stand, narrowed by the client', () => {
    expect(identityEffectiveRoots([], undefined, defaults, ['/srv/a'])).toEqual(['/srv/a']);
    expect(identityEffectiveRoots([], ['/srv/a/x', '/home/me'], defaults, ['/srv/a'])).toEqual(['/srv/a/x']);
  });
});
