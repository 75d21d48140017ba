/**
 * Rehearsal scenario DAG: a 500 KB DAG spec (a large param) and a 2 MB XCom, both over
 * DynamoDB's item size, so they travel through `blobs/` in S3.
 */
import { dag } from 'airless';

const XCOM_BYTES = 2 * 1024 * 1024;

export default dag('rehearsal_big', { schedule: null, params: { padding: 'p'.repeat(500_000) } }, ({ task }) => {
  const produce = task('produce', async () => 'x'.repeat(XCOM_BYTES));
  const consume = task('consume', async (ctx) => {
    const value = await ctx.xcom.pull<string>('produce');
    if (value.length !== XCOM_BYTES) throw new Error(`XCom arrived with ${value.length} bytes`);
    return value.length;
  });
  produce.before(consume);
});
