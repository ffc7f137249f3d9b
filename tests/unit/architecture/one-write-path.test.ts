import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALLOWED_FILES, coveredSources, rawWrites } from './write-path';

const REPO = path.resolve(__dirname, '../../..');

/** docs/architecture.md "One write path": data files are written only through src/kernel/files. */
describe('one write path', () => {
  it('no file of src/ outside src/kernel/files writes a file itself', () => {
    const files = coveredSources(REPO);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => rawWrites(f, fs.readFileSync(path.join(REPO, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('every allow-listed file still exists and has its reason', () => {
    for (const [file, entry] of Object.entries(ALLOWED_FILES)) {
      expect(fs.existsSync(path.join(REPO, file))).toBe(true);
      expect(entry.reason.length).toBeGreaterThan(10);
    }
  });

  it('catches the raw writes it is meant to catch (and not comments, stdout, or the kernel helpers)', () => {
    const sample = [
      "import * as fs from 'node:fs/promises';",
      'await handle.write(text);',
      'await fs.appendFile(file, line);',
      "await fs.writeFile(tmp, JSON.stringify(s));",
      'const out = fs.createWriteStream(file);',
      'fs.writeSync(fd, buf);',
      'await fs.copyFile(a, b);',
      'await fs.truncate(file, 3);',
      'await handle.writeFile(key);',
      '// await fs.writeFile(commented, out);',
      '/* handle.write(x) */',
      "process.stderr.write('x\\n');",
      'this.write(events, text);',
      'await writeFileAtomic(file, text);',
      'await appendLines(file, text);',
      'await writeAll(out, data, 0);',
    ].join('\n');
    expect(rawWrites('src/modules/x/infrastructure/store.ts', sample)).toEqual([
      'src/modules/x/infrastructure/store.ts:3: appendFile(',
      'src/modules/x/infrastructure/store.ts:4: writeFile(',
      'src/modules/x/infrastructure/store.ts:5: createWriteStream(',
      'src/modules/x/infrastructure/store.ts:6: writeSync(',
      'src/modules/x/infrastructure/store.ts:7: copyFile(',
      'src/modules/x/infrastructure/store.ts:9: writeFile(',
      'src/modules/x/infrastructure/store.ts:2: handle.write(',
      'src/modules/x/infrastructure/store.ts:8: fs.truncate(',
    ]);
    // An allow-listed stream is allowed only in its file.
    expect(rawWrites('src/server/line-transport.ts', 'this.output.write(text);')).toEqual([]);
    expect(rawWrites('src/modules/x/y.ts', 'this.output.write(text);')).toEqual(['src/modules/x/y.ts:1: this.output.write(']);
  });
});
