import { runScenarios } from '../lib/rehearsal/scenarios/index.ts';
const names = process.argv.slice(2);
const t0 = performance.now();
const s = await runScenarios(names, { stateDir: '/tmp/jobsim-state', cdkOut: '/tmp/jobsim-cdk' }, (l) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1)}] ${l.slice(0, 160)}`));
console.log(JSON.stringify({ scenarios: s.scenarios, accessDenied: s.accessDenied, denied: s.denied, awsCalls: s.awsCalls, unused: s.unusedGrants }));
const byPrincipal: Record<string, number> = {};
for (const d of s.decisions) byPrincipal[d.principal] = (byPrincipal[d.principal] ?? 0) + 1;
console.log(JSON.stringify(byPrincipal));
const pk: Record<string, number> = {};
for (const d of s.decisions) if (d.principal.includes('Poker') || d.principal.includes('Tick')) { const k = `${d.principal.slice(16, 20)} ${d.action} ${d.resource.replace(/.*:table\//, '').slice(0, 50)}`; pk[k] = (pk[k] ?? 0) + 1; }
console.log(JSON.stringify(Object.entries(pk).sort((a, b) => b[1] - a[1]).slice(0, 15)));
process.exit(0);
