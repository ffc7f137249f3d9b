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

  it('takes the PostgreSQL search cache budget from WORKGRAPH_SEARCH_CACHE_MB (0 turns it off; else 128 MiB)', () => {
    expect(resolveConfig({}, {}, cwd).knowledge.searchCacheBytes).toBe(128 * 1024 * 1024);
    expect(resolveConfig({}, { WORKGRAPH_SEARCH_CACHE_MB: '16' }, cwd).knowledge.searchCacheBytes).toBe(16 * 1024 * 1024);
    expect(resolveConfig({}, { WORKGRAPH_SEARCH_CACHE_MB: '0' }, cwd).knowledge.searchCacheBytes).toBe(0);
    expect(() => resolveConfig({}, { WORKGRAPH_SEARCH_CACHE_MB: 'lots' }, cwd)).toThrow("WORKGRAPH_SEARCH_CACHE_MB: expected a size in MiB (0 or more, 0 turns the cache off), got 'lots'");
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

describe('config file (--config, WORKGRAPH_CONFIG)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-config-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads YAML settings, resolving paths against the file; env and flags beat it', () => {
    const file = path.join(dir, 'workgraph.yaml');
    fs.writeFileSync(file, 'dataDir: data\nallowRoot: [/srv/a, rel]\ngraphs: g.yaml\nlogLevel: warn\nworkflows: wf\n');
    const cfg = resolveConfig({ config: file }, {}, '/elsewhere');
    expect(cfg).toMatchObject({ dataDir: path.join(dir, 'data'), allowedRoots: ['/srv/a', path.join(dir, 'rel')], graphPaths: [path.join(dir, 'g.yaml')], logLevel: 'warn' });
    expect(cfg.workflowSources.map((s) => s.source)).toEqual(['bundled', 'config']);
    expect(resolveConfig({ config: file }, { WORKGRAPH_DATA_DIR: '/env/data', WORKGRAPH_LOG_LEVEL: 'debug' }, '/').dataDir).toBe('/env/data');
    expect(resolveConfig({ config: file, dataDir: '/flag' }, { WORKGRAPH_DATA_DIR: '/env/data' }, '/')).toMatchObject({ dataDir: '/flag' });
    expect(resolveConfig({}, { WORKGRAPH_CONFIG: file }, '/').logLevel).toBe('warn');
  });

  it('reads JSON too', () => {
    const file = path.join(dir, 'c.json');
    fs.writeFileSync(file, JSON.stringify({ dataDir: '/abs/data' }));
    expect(resolveConfig({ config: file }, {}, '/').dataDir).toBe('/abs/data');
  });

  it('refuses unknown keys, wrong types and broken files with one line naming the file and the key', () => {
    const bad = (name: string, text: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return () => resolveConfig({ config: file }, {}, '/');
    };
    expect(bad('a.yaml', 'dataDri: x\n')).toThrow(/a\.yaml: unknown setting "dataDri" \(known: .*dataDir/);
    expect(bad('b.yaml', 'allowRoot: 3\n')).toThrow(/b\.yaml: "allowRoot" must be a string or a list of strings/);
    expect(bad('c.json', '{"dataDir": ')).toThrow(/c\.json: not valid JSON/);
    expect(bad('d.yaml', '- a\n- b\n')).toThrow(/d\.yaml: expected an object of settings/);
    expect(() => resolveConfig({ config: path.join(dir, 'missing.yaml') }, {}, '/')).toThrow(/missing\.yaml: cannot read it \(ENOENT\)/);
  });
});

describe('graph runs recorded per tool (--graph-runs-keep, WORKGRAPH_GRAPH_RUNS_KEEP, graphRunsKeep)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-config-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('defaults to 20; the flag beats the variable beats the config file; 0 records none', () => {
    const file = path.join(dir, 'c.yaml');
    fs.writeFileSync(file, 'graphRunsKeep: 7\n');
    expect(resolveConfig({}, {}, dir).graphRunsPerTool).toBe(20);
    expect(resolveConfig({ config: file }, {}, dir).graphRunsPerTool).toBe(7);
    expect(resolveConfig({ config: file }, { WORKGRAPH_GRAPH_RUNS_KEEP: '3' }, dir).graphRunsPerTool).toBe(3);
    expect(resolveConfig({ config: file, graphRunsKeep: '0' }, { WORKGRAPH_GRAPH_RUNS_KEEP: '3' }, dir).graphRunsPerTool).toBe(0);
  });

  it('refuses a value that is not a whole number, naming where it came from', () => {
    expect(() => resolveConfig({ graphRunsKeep: '-1' }, {}, dir)).toThrow("--graph-runs-keep: expected a whole number (0 or more), got '-1'");
    expect(() => resolveConfig({}, { WORKGRAPH_GRAPH_RUNS_KEEP: 'lots' }, dir)).toThrow(/WORKGRAPH_GRAPH_RUNS_KEEP: expected a whole number/);
    const file = path.join(dir, 'c.yaml');
    fs.writeFileSync(file, 'graphRunsKeep: 2.5\n');
    expect(() => resolveConfig({ config: file }, {}, dir)).toThrow(/"graphRunsKeep" must be an integer/);
  });
});

describe('resource subscriptions per session (--max-subscriptions, WORKGRAPH_MAX_SUBSCRIPTIONS, maxSubscriptions)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-config-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('defaults to 1,000; the flag beats the variable beats the config file', () => {
    const file = path.join(dir, 'c.yaml');
    fs.writeFileSync(file, 'maxSubscriptions: 50\n');
    expect(resolveConfig({}, {}, dir).maxSubscriptions).toBe(1000);
    expect(resolveConfig({ config: file }, {}, dir).maxSubscriptions).toBe(50);
    expect(resolveConfig({ config: file }, { WORKGRAPH_MAX_SUBSCRIPTIONS: '20' }, dir).maxSubscriptions).toBe(20);
    expect(resolveConfig({ config: file, maxSubscriptions: '5' }, { WORKGRAPH_MAX_SUBSCRIPTIONS: '20' }, dir).maxSubscriptions).toBe(5);
  });

  it('refuses a value that is not a whole number, naming where it came from', () => {
    expect(() => resolveConfig({ maxSubscriptions: 'many' }, {}, dir)).toThrow("--max-subscriptions: expected a whole number (0 or more), got 'many'");
    expect(() => resolveConfig({}, { WORKGRAPH_MAX_SUBSCRIPTIONS: '-3' }, dir)).toThrow(/WORKGRAPH_MAX_SUBSCRIPTIONS: expected a whole number/);
  });
});

describe('graph authoring tools (--graph-authoring, WORKGRAPH_GRAPH_AUTHORING, graphAuthoring)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-config-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is off by default; the flag beats the variable beats the config file', () => {
    const file = path.join(dir, 'c.yaml');
    fs.writeFileSync(file, 'graphAuthoring: true\n');
    expect(resolveConfig({}, {}, dir).graphAuthoring).toBe(false);
    expect(resolveConfig({ config: file }, {}, dir).graphAuthoring).toBe(true);
    expect(resolveConfig({ config: file }, { WORKGRAPH_GRAPH_AUTHORING: '0' }, dir).graphAuthoring).toBe(false);
    expect(resolveConfig({}, { WORKGRAPH_GRAPH_AUTHORING: 'true' }, dir).graphAuthoring).toBe(true);
    expect(resolveConfig({ graphAuthoring: true }, { WORKGRAPH_GRAPH_AUTHORING: '0' }, dir).graphAuthoring).toBe(true);
  });

  it('refuses a variable that is not 1/0/true/false, naming it', () => {
    expect(() => resolveConfig({}, { WORKGRAPH_GRAPH_AUTHORING: 'yes please' }, dir)).toThrow("WORKGRAPH_GRAPH_AUTHORING: expected 1 or 0, got 'yes please'");
  });
});
