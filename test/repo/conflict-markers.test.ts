/**
 * No tracked text file holds a merge-conflict block (a line starting with seven `<` and
 * a space, a line of exactly seven `=` after it, a line starting with seven `>` and a
 * space after that): docs/rehearsal.md once shipped one. A lone line of `=` is a
 * Markdown heading underline and is not a conflict. The markers are built with repeat()
 * so that this file does not match itself.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const OURS = `${'<'.repeat(7)} `;
const SPLIT = '='.repeat(7);
const THEIRS = `${'>'.repeat(7)} `;

/** 1-based line numbers where a complete conflict block starts. */
function conflictBlocks(text: string): number[] {
  const found: number[] = [];
  let start = -1;
  let split = false;
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.startsWith(OURS)) {
      start = i + 1;
      split = false;
    } else if (start > 0 && line === SPLIT) {
      split = true;
    } else if (start > 0 && split && line.startsWith(THEIRS)) {
      found.push(start);
      start = -1;
    }
  });
  return found;
}

describe('merge-conflict markers', () => {
  it('are recognised as a block, not as a heading underline', () => {
    const block = ['intro', `${OURS}HEAD`, 'ours', SPLIT, 'theirs', `${THEIRS}branch`, 'end'].join('\n');
    expect(conflictBlocks(block)).toEqual([2]);
    expect(conflictBlocks(`Title\n${SPLIT}\n\ntext\n`)).toEqual([]);
    expect(conflictBlocks(`${OURS}HEAD\nonly the start\n`)).toEqual([]);
  });

  it('are in no tracked text file', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    const hits: string[] = [];
    for (const f of files) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.join(ROOT, f));
      } catch {
        continue; // deleted in the work tree, not yet committed
      }
      if (bytes.subarray(0, 8000).includes(0)) continue; // binary
      for (const line of conflictBlocks(bytes.toString('utf8'))) hits.push(`${f}:${line}`);
    }
    expect(hits).toEqual([]);
  });
});
