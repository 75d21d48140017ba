/**
 * `npm run api:coverage`: prints how many of the spec's operations the API serves and
 * how many of those conform (test/api/coverage-probes.ts says how each is checked).
 */
import { coverageReport, probeOperations } from './coverage-probes.js';

const results = await probeOperations();
process.stdout.write(`${coverageReport(results).join('\n')}\n`);
process.exit(0);
