import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The directory of Broadsheet's package.json: where the files the code reads at run time live (SQL migrations,
 * index mappings), whether the code runs from `src/` through tsx or compiled from `dist/src/`.
 */
export function packageRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** A path inside the package, e.g. `packagePath('index-mappings', 'publications.json')`. */
export function packagePath(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}
