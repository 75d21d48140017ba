/**
 * Bundling DAG folders and loading bundles: what `airless build` and the runtimes call.
 */
export { buildBundle, findDagFiles, SDK_ENTRY, AIRFLOW_SDK_ENTRY, type BuildOptions, type BuildResult } from './bundle.js';
export { loadBundle } from '../isolation/load.js';
export { LocalBundleSource, buildToLocalVersion } from './local-source.js';
export { collectDefinitions, importBundle } from '../isolation/collect.js';
export { sha256Hex } from '../engine/index.js';
export { bundleVersion } from './version.js';
export { BuildCache, defaultCacheDir } from './cache.js';
