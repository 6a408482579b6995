/**
 * A package loaded on its first use rather than when the process starts: for the heavy ones a read-only
 * delivery request never touches (the S3 SDK, sharp, sanitize-html, jwks-rsa). Whatever a process loads stays
 * on its heap for good, and every full collection marks it again: under export load the API spent about a
 * fifth of its CPU in GC, mostly marking a heap a third of which was such packages.
 *
 * The package is resolved here, when the module that names it is loaded, so a package missing from the
 * install still stops the process at startup; only its evaluation waits, and a failure then names the
 * package. The type comes from an `import type` of the same package:
 *
 *   import type sharp from 'sharp';
 *   const loadSharp = lazyModule<typeof sharp>('sharp');
 *   ... loadSharp()(path).metadata()
 */
export function lazyModule<Module>(id: string): () => Module {
  const path = require.resolve(id);
  let loaded: { module: Module } | undefined;
  return () => {
    if (loaded === undefined) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading on demand is the point
        loaded = { module: require(path) as Module };
      } catch (error) {
        throw new Error(
          `could not load the package ${id}: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
    return loaded.module;
  };
}
