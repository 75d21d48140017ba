/**
 * Ten trivial tasks in a chain: the throughput check of the README,
 * `npx airless run examples/throughput --dag chain10 --runs 100 --time-warp --quiet`.
 */
import { chain, dag } from 'airless';

export default dag('chain10', { maxActiveRuns: 1000, defaultArgs: { retries: 0 } }, ({ task }) => {
  chain(...Array.from({ length: 10 }, (_, i) => task(`t${i}`, async () => undefined)));
});
