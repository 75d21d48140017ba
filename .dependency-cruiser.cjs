/**
 * The engine's boundary and its layers (docs/adr/0001, 0009, 0026), checked over the resolved
 * module graph by `npm run deps` (test/engine/purity.test.ts applies the same rules to lib/engine).
 * A change violates this when lib/engine has an import cycle through a value import, imports
 * anything outside lib/engine but croner, @cfworker/json-schema and node:crypto, when a layer
 * imports one above it (model ← rules ← write ← flow ← handlers), or when code outside the engine
 * deep-imports an engine module instead of its two entries (index.ts, ports-index.ts).
 */
const LAYER = (name) => `^lib/engine/${name}/`;
const ENTRIES = ['^lib/engine/index\\.ts$', '^lib/engine/ports-index\\.ts$'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'engine-no-cycles',
      comment: 'lib/engine has no import cycles: each step imports only the steps and helpers below it. A cycle made only of type imports is erased at compile time and allowed (ADR 0026).',
      severity: 'error',
      from: { path: '^lib/engine/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'engine-stays-inside',
      comment: 'The engine decides; adapters do. It reaches outside lib/engine only for croner (cron arithmetic), @cfworker/json-schema (param schemas, ADR 0025) and node:crypto (hashing).',
      severity: 'error',
      from: { path: '^lib/engine/' },
      to: { pathNot: ['^lib/engine/', '^node_modules/croner/', '^node_modules/@cfworker/json-schema/', '^crypto$'] },
    },
    {
      name: 'engine-layers-skip-the-entries',
      comment: 'Engine modules import each other directly, never through index.ts or ports-index.ts (the entries are for the world outside).',
      severity: 'error',
      from: { path: '^lib/engine/[^/]+/' },
      to: { path: '^lib/engine/[^/]+\\.ts$' },
    },
    {
      name: 'model-imports-model',
      comment: 'model/ (types, states, messages, errors, ports) is the bottom layer: it imports only model/.',
      severity: 'error',
      from: { path: LAYER('model') },
      to: { path: '^lib/engine/', pathNot: LAYER('model') },
    },
    {
      name: 'rules-import-model-and-rules',
      comment: 'rules/ (pure decisions) import only model/ and rules/.',
      severity: 'error',
      from: { path: LAYER('rules') },
      to: { path: '^lib/engine/', pathNot: [LAYER('model'), LAYER('rules')] },
    },
    {
      name: 'write-imports-model-rules-write',
      comment: 'write/ (the one writer of task state) imports only model/, rules/ and write/.',
      severity: 'error',
      from: { path: LAYER('write') },
      to: { path: '^lib/engine/', pathNot: [LAYER('model'), LAYER('rules'), LAYER('write')] },
    },
    {
      name: 'flow-imports-below-handlers',
      comment: 'flow/ (settling, runs, recovery, waiting, mapping, pools...) never imports handlers/.',
      severity: 'error',
      from: { path: LAYER('flow') },
      to: { path: LAYER('handlers') },
    },
    {
      name: 'handlers-do-not-call-handlers',
      comment: 'A handler is one entry (a message, a tick); only handlers/dispatch.ts, the router of queue messages, imports other handlers.',
      severity: 'error',
      from: { path: LAYER('handlers'), pathNot: '^lib/engine/handlers/dispatch\\.ts$' },
      to: { path: LAYER('handlers') },
    },
    {
      name: 'engine-through-its-entries',
      comment: 'Everything outside the engine (handlers, adapters, runtimes, CLI, API, SDK, build, tests, bench) imports it through lib/engine/index.ts, or lib/engine/ports-index.ts for what adapters implement. Allowed to reach in: test/engine/ (the engine\'s own unit tests, mirroring its folders, test internal helpers directly) and test/isolation/poke.test.ts (the per-poke timeout, an internal of flow/poke.ts, against real threads).',
      severity: 'error',
      from: { pathNot: ['^lib/engine/', '^test/engine/', '^test/isolation/poke\\.test\\.ts$'] },
      to: { path: '^lib/engine/', pathNot: ENTRIES },
    },
    {
      name: 'rehearsal-without-cli',
      comment: 'The rehearsal drives the CLI through a runner it is given (issue 25 §2) and imports nothing of lib/cli. The stack output names come from lib/adapters/aws/stack-contract.ts.',
      severity: 'error',
      from: { path: '^lib/rehearsal/' },
      to: { path: '^lib/cli/' },
    },
    {
      name: 'adapters-not-infra',
      comment: 'The functions\' code never loads the CDK: the adapters read the stack\'s names from lib/adapters/aws/stack-contract.ts, which lib/infra imports, never the other way (issue 25 §1).',
      severity: 'error',
      from: { path: '^lib/adapters/' },
      to: { path: '^lib/infra/' },
    },
    {
      name: 'isolation-below-build',
      comment: 'Loading a bundle and running its tries (lib/isolation) never needs the bundler (lib/build): the build writes manifests with the loader\'s collect, never the other way (issue 25 §4).',
      severity: 'error',
      from: { path: '^lib/isolation/' },
      to: { path: '^lib/build/' },
    },
    {
      name: 'lib-no-value-cycles',
      comment: 'No import cycle anywhere in lib/ except through type-only imports (issue 25): a value cycle makes module load order matter and hides which file is lower.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'isolation-below-adapters',
      comment: 'The AWS bundle source (lib/adapters/aws/s3-bundles.ts) loads bundles with lib/isolation, so lib/isolation never imports an adapter: the build checks what EventBridge can express (lib/build/deployable.ts).',
      severity: 'error',
      from: { path: '^lib/isolation/' },
      to: { path: '^lib/adapters/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
    exclude: { path: '(^|/)cdk\\.out/' },
  },
};
