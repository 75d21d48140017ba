import { COMMON } from '../options.js';
import type { Command } from '../registry.js';
import { ENDPOINT, onStack } from './stack.js';

export const push: Command = {
  words: ['push'], args: [{ name: 'dir' }], group: 'stack',
  summary: 'type-check, build and upload DAG files, wait until the stack registered them',
  options: { stack: COMMON.stack, endpoint: ENDPOINT, 'no-typecheck': COMMON.noTypecheck },
  run: ([dir], o, io) => onStack(o, io, async (ctx) => {
    const [{ pushBundle }, { defaultCacheDir }] = await Promise.all([import('../aws-push.js'), import('../../build/index.js')]);
    await pushBundle(dir!, { s3: ctx.clients.s3, bucket: ctx.env.bucket, out: ctx.out, typecheck: !o['no-typecheck'], cacheDir: defaultCacheDir() });
    return 0;
  }),
};
