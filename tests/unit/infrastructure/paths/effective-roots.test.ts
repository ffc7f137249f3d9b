import { effectiveRoots } from '../../../../src/kernel/files/effective-roots';

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
