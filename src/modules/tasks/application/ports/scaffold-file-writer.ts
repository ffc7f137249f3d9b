/** One file to write, named relative to the target folder. */
export interface ScaffoldFile {
  relativePath: string;
  content: string;
  /** Argument name used in errors (`phaseTasks[2].fileName`). */
  field: string;
}

/** Writes a set of documentation files into one folder, all or nothing. */
export interface ScaffoldFileWriter {
  /**
   * Checks every file first — its name stays inside `targetDirectory` lexically and after following symlinks, and it
   * does not exist unless `overwrite` — then writes them all or none (staged to temporary files, then put in place;
   * on failure what the call created is removed), re-checking each file's folder right before writing so a folder
   * swapped for a symlink cannot lead a write outside. Returns the absolute paths written, in order.
   * @throws UnsafePathError for a name escaping the folder (`..`, absolute, NUL, symlink out);
   *   AlreadyExistsError for an existing file without `overwrite`; StorageError when a write fails (nothing written).
   */
  writeAll(targetDirectory: string, files: readonly ScaffoldFile[], opts: { overwrite: boolean }): Promise<string[]>;
}
