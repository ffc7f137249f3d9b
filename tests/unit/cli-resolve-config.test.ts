import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultDataDir, resolveConfig } from '../../src/cli/resolve-config';

describe('resolveConfig', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-cfg-')));
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it('orders workflow sources bundled, project, env, flag', () => {
    fs.mkdirSync(path.join(cwd, 'workflows'));
    const cfg = resolveConfig({ workflows: ['f1'] }, { WORKGRAPH_WORKFLOWS_PATH: `e1${path.delimiter}e2` }, cwd);
    expect(cfg.workflowSources.map((s) => s.source)).toEqual(['bundled', 'project', 'env', 'env', 'flag']);
    expect(cfg.workflowSources[4].dir).toBe(path.join(cwd, 'f1'));
  });

  it('skips ./workflows when it does not exist', () => {
    expect(resolveConfig({}, {}, cwd).workflowSources.map((s) => s.source)).toEqual(['bundled']);
  });

  it('lets a flag beat its environment variable', () => {
    const env = { WORKGRAPH_DATA_DIR: '/env/data', WORKGRAPH_ALLOWED_ROOTS: '/a:/b', WORKGRAPH_GRAPHS_PATH: '/g' };
    expect(resolveConfig({}, env, cwd)).toMatchObject({ dataDir: '/env/data', allowedRoots: ['/a', '/b'], graphPaths: ['/g'] });
    expect(resolveConfig({ dataDir: '/flag', allowRoot: ['/r'], graphs: ['/h'] }, env, cwd)).toMatchObject({
      dataDir: '/flag',
      allowedRoots: ['/r'],
      graphPaths: ['/h'],
    });
  });

  it('defaults the data dir to XDG_DATA_HOME or ~/.local/share', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' })).toBe('/xdg/workgraph');
    expect(defaultDataDir({})).toBe(path.join(os.homedir(), '.local', 'share', 'workgraph'));
    expect(defaultDataDir({ XDG_DATA_HOME: 'relative' })).toBe(path.join(os.homedir(), '.local', 'share', 'workgraph'));
  });
});
