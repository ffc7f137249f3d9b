import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AllowedRootsPolicy } from '../../../src/kernel/files/allowed-roots-policy';

describe('AllowedRootsPolicy', () => {
  let root: string;
  let outside: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-roots-')));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-out-')));
    fs.mkdirSync(path.join(root, 'proj'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('accepts a folder inside an explicit root and returns its real path', async () => {
    const p = new AllowedRootsPolicy([root]);
    await expect(p.resolveAllowedDirectory(path.join(root, 'proj'), 'projectRoot')).resolves.toBe(path.join(root, 'proj'));
  });

  it('refuses folders outside, `..` escapes and symlinks pointing out', async () => {
    const p = new AllowedRootsPolicy([root]);
    await expect(p.resolveAllowedDirectory(outside, 'projectRoot')).rejects.toMatchObject({ code: 'path_not_allowed' });
    await expect(p.resolveAllowedDirectory(path.join(root, 'proj', '..', '..', path.basename(outside)), 'projectRoot')).rejects.toMatchObject({
      code: 'path_not_allowed',
    });
    fs.symlinkSync(outside, path.join(root, 'link'));
    await expect(p.resolveAllowedDirectory(path.join(root, 'link'), 'projectRoot')).rejects.toThrow(/projectRoot: .* outside the allowed roots/);
  });

  it('refuses NUL bytes, relative paths, missing folders and files', async () => {
    const p = new AllowedRootsPolicy([root]);
    await expect(p.resolveAllowedDirectory(root + '/a\0b', 'f')).rejects.toMatchObject({ code: 'unsafe_path' });
    await expect(p.resolveAllowedDirectory('relative/x', 'f')).rejects.toThrow(/absolute/);
    await expect(p.resolveAllowedDirectory(path.join(root, 'missing'), 'f')).rejects.toThrow(/does not exist/);
    fs.writeFileSync(path.join(root, 'file'), 'x');
    await expect(p.resolveAllowedDirectory(path.join(root, 'file'), 'f')).rejects.toThrow(/not a directory/);
    await expect(p.resolveAllowedDirectory(path.join(root, 'missing'), 'f', { mustExist: false })).resolves.toBe(path.join(root, 'missing'));
  });

  it('lets client roots narrow the operator roots, never widen them', async () => {
    const p = new AllowedRootsPolicy([root]);
    let clientRoots = async () => [outside];
    // A client root beside the operator root adds nothing: nothing is allowed.
    await expect(p.resolveAllowedDirectory(outside, 'f', { clientRoots })).rejects.toMatchObject({ code: 'path_not_allowed' });
    await expect(p.resolveAllowedDirectory(path.join(root, 'proj'), 'f', { clientRoots })).rejects.toMatchObject({ code: 'path_not_allowed' });
    // `file:///` is wider than the operator root: the operator root stands.
    clientRoots = async () => ['/'];
    expect(await p.allowedRoots(clientRoots)).toEqual([root]);
    await expect(p.resolveAllowedDirectory(outside, 'f', { clientRoots })).rejects.toMatchObject({ code: 'path_not_allowed' });
    // A client root inside the operator root narrows it.
    clientRoots = async () => [path.join(root, 'proj')];
    expect(await p.allowedRoots(clientRoots)).toEqual([path.join(root, 'proj')]);
    fs.mkdirSync(path.join(root, 'other'));
    await expect(p.resolveAllowedDirectory(path.join(root, 'other'), 'f', { clientRoots })).rejects.toMatchObject({ code: 'path_not_allowed' });
    // No client roots: the operator roots.
    clientRoots = async () => [];
    await expect(p.resolveAllowedDirectory(path.join(root, 'other'), 'f', { clientRoots })).resolves.toBeTruthy();
  });

  it('lets the client roots stand when the operator set none', async () => {
    const p = new AllowedRootsPolicy([]);
    const clientRoots = async () => [outside];
    await expect(p.resolveAllowedDirectory(outside, 'f', { clientRoots })).resolves.toBe(outside);
    await expect(p.resolveAllowedDirectory(path.join(root, 'proj'), 'f', { clientRoots })).rejects.toMatchObject({ code: 'path_not_allowed' });
  });

  it('each call brings its own client roots: one policy serves many sessions', async () => {
    const p = new AllowedRootsPolicy([]);
    const first = async () => [outside];
    const second = async () => [root];
    await expect(p.resolveAllowedDirectory(outside, 'f', { clientRoots: first })).resolves.toBe(outside);
    await expect(p.resolveAllowedDirectory(outside, 'f', { clientRoots: second })).rejects.toMatchObject({ code: 'path_not_allowed' });
    await expect(p.resolveAllowedDirectory(path.join(root, 'proj'), 'f', { clientRoots: first, mustExist: false })).rejects.toMatchObject({ code: 'path_not_allowed' });
    await expect(p.resolveAllowedDirectory(path.join(root, 'proj'), 'f', { clientRoots: second, mustExist: false })).resolves.toBeTruthy();
  });

  it('defaults to the home and temp folders', async () => {
    const roots = await new AllowedRootsPolicy([]).allowedRoots();
    expect(roots).toContain(fs.realpathSync(os.tmpdir()));
    expect(roots).toContain(fs.realpathSync(os.homedir()));
  });
});
