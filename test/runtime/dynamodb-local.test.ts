/**
 * DynamoDB Local writes `dynamodb-local-metadata.json` into its working directory even
 * in memory with telemetry off; started by the rehearsal (or `run --store
 * dynamodb-local`) from a user's project, it must leave nothing there.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../lib/runtime/dynamodb-local.js';

const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

describe('DynamoDB Local', () => {
  it('leaves no file in the folder it is started from', async () => {
    const project = mkdtempSync(path.join(tmpdir(), 'airless-project-'));
    process.chdir(project);
    const ddb = await startDynamoDbLocal();
    try {
      expect(readdirSync(project)).toEqual([]);
    } finally {
      await ddb.stop();
    }
    expect(existsSync(path.join(project, 'dynamodb-local-metadata.json'))).toBe(false);
  });
});
