/** One file to write, named relative to the target folder. */
export interface ScaffoldFile {
  relativePath: string;
  content: string;
  /** Argument name used in errors (`phaseTasks[2].fileName`). */
  field: string;
}

/** Writes a set of documentation files into one folder, all or nothing as far as the checks go. */
export interface ScaffoldFileWriter {
  /**
   * Checks every file first — its name stays inside `targetDirectory` lexically and after following symlinks, and it
   * does not exist unless `overwrite` — then writes each atomically, creating subfolders. Returns the absolute paths
   * written, in order.
   * @throws UnsafePathError for a name escaping the folder (`..`, absolute, NUL, symlink out);
   *   AlreadyExistsError for an existing file without `overwrite`.
   */
  writeAll(targetDirectory: string, files: readonly ScaffoldFile[], opts: { overwrite: boolean }): Promise<string[]>;
}
