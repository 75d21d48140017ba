/**
 * Poker: one poke cycle of one shard (`{"shard": i}`), invoked every minute per shard.
 * Each distinct sensor target is poked once per cycle however many tasks wait on it.
 */
import middy from '@middy/core';
import { InvalidInputError } from '../lib/engine/index.js';
import { pokeShard } from '../lib/engine/index.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';

export const run = async (event: { shard?: unknown }) => {
  const ports = lambdaPorts();
  const shard = Number(event?.shard);
  if (!Number.isInteger(shard) || shard < 0 || shard >= ports.config.shards) {
    throw new InvalidInputError(`poker needs {"shard": 0..${ports.config.shards - 1}}, got ${JSON.stringify(event)}`);
  }
  const report = await pokeShard(ports, shard, { shards: ports.config.shards, cycle: Math.floor(ports.clock.now() / 60_000) });
  ports.log.info('poke cycle', { shard, ...report });
  return report;
};

export const handler = middy(run).use(flushMetrics());
