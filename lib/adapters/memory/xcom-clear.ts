/**
 * Clearing a task instance's XComs in the memory store (`Store.clearXcoms`): every key
 * the task pushed, its return value included. Keys of the store's map are
 * `<dagId>\0<runId>\0<taskId>\0<key>`, so one task's XComs share a prefix.
 */

/**
 * Deletes the entries of `xcoms` under the task prefix `taskKey` (`dagId\0runId\0taskId`).
 * Returns how many went.
 *
 * @example
 * clearMemoryXcoms(xcoms, 'etl\u0000r1\u0000extract'); // 2
 */
export function clearMemoryXcoms(xcoms: Map<string, unknown>, taskKey: string): number {
  const prefix = `${taskKey}\u0000`;
  let n = 0;
  for (const k of [...xcoms.keys()]) {
    if (k.startsWith(prefix)) {
      xcoms.delete(k);
      n++;
    }
  }
  return n;
}
