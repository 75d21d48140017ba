/**
 * The engine's boundary (docs/adr/0001, docs/adr/0009), checked over the resolved module
 * graph: `npx depcruise lib/engine functions lib --config .dependency-cruiser.cjs`
 * (test/unit/engine-layout.test.ts runs it). A change violates this when lib/engine has an
 * import cycle, imports anything outside lib/engine but croner, @cfworker/json-schema and node:crypto, or when
 * code outside lib/engine deep-imports an engine module instead of lib/engine/index.ts.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'engine-no-cycles',
      comment: 'lib/engine has no import cycles: each step of a run imports only the steps and helpers below it.',
      severity: 'error',
      from: { path: '^lib/engine/' },
      to: { circular: true },
    },
    {
      name: 'engine-stays-inside',
      comment: 'The engine decides; adapters do. It reaches outside lib/engine only for croner (cron arithmetic), @cfworker/json-schema (param schemas, ADR 0025) and node:crypto (hashing).',
      severity: 'error',
      from: { path: '^lib/engine/' },
      to: { pathNot: ['^lib/engine/', '^node_modules/croner/', '^node_modules/@cfworker/json-schema/', '^crypto$'] },
    },
    {
      name: 'engine-through-its-index',
      comment: 'The handlers and adapters import the engine through lib/engine/index.ts only.',
      severity: 'error',
      from: { path: ['^functions/', '^lib/adapters/'] },
      to: { path: '^lib/engine/', pathNot: '^lib/engine/index\\.ts$' },
    },
    {
      name: 'engine-through-its-index-elsewhere',
      comment: 'Elsewhere (CLI, SDK, build, infra, local) deep imports remain from before issue 10: move them to the index as those files change.',
      severity: 'warn',
      from: { pathNot: ['^lib/engine/', '^functions/', '^lib/adapters/', '^test/', '^bench/'] },
      to: { path: '^lib/engine/', pathNot: '^lib/engine/index\\.ts$' },
    },
    {
      name: 'tests-through-the-index',
      comment: 'Tests import the engine through lib/engine/index.ts where the symbol is exported; a deep import remains only for an internal helper a unit test exercises directly.',
      severity: 'warn',
      from: { path: '^test/' },
      to: { path: '^lib/engine/', pathNot: '^lib/engine/index\\.ts$' },
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
    exclude: { path: '(^|/)cdk\\.out/' },
  },
};
