/**
 * How XCom values are written and read, by every store (memory, DynamoDB, S3 blobs), so a
 * value arrives downstream as it left: `Date`, `Map`, `Set`, `BigInt`, `undefined`, `NaN`,
 * `-0`, `RegExp`, typed arrays, `ArrayBuffer`, repeated and circular references, nested.
 *
 * Serializer: devalue (Svelte's, small, no dependencies). Chosen over superjson, which
 * turns a class instance into a plain object silently (the loss issue 11 is about), and
 * over v8.serialize, which also drops prototypes silently, names no path when it refuses a
 * value, and writes a binary format tied to the V8 version (Lambda on Node 24, the CLI on
 * Node 20 read the same items). devalue refuses functions, symbols and class instances
 * with the path inside the value, which the error below passes on.
 *
 * Stored form: the devalue text (memory store), or for DynamoDB and blobs the JSON
 * `{ "$xcom": "devalue", "v": [...] }`; JSON stored before this codec is read as it is.
 */
import { DevalueError, parse, stringify, unflatten } from 'devalue';
import { AirlessError, depthProblem } from '../engine/index.js';
import type { XcomKey } from '../engine/index.js';

/** An XCom value that cannot be stored as it is (one line, naming the task and the path). */
export class XcomValueError extends AirlessError {}

const TAG = 'devalue';

function describe(key: XcomKey, err: unknown): never {
  if (err instanceof DevalueError) {
    const where = err.path ? `value${err.path}` : 'the value itself';
    const what = err.message.replace(/^Cannot stringify /, '').replace('arbitrary non-POJOs', 'a class instance');
    throw new XcomValueError(
      `XCom ${key.key} of task ${key.taskId} cannot be stored: ${what} at ${where} ` +
        '(XCom keeps JSON values, Date, Map, Set, BigInt, undefined, RegExp and typed arrays; convert other objects to plain data)',
      { cause: err },
    );
  }
  throw err;
}

/**
 * Encodes a value as text (the memory store keeps it as it is).
 *
 * @example
 * decodeXcom(encodeXcom(new Map([['a', 1n]]), key)); // Map { 'a' => 1n }
 * @throws XcomValueError for a function, symbol or class instance, or a value nested
 *   more than MAX_VALUE_DEPTH levels, naming the path.
 */
export function encodeXcom(value: unknown, key: XcomKey): string {
  // Before devalue, which recurses and overflows the stack near 1,700 levels (rules/values.ts).
  const deep = depthProblem(value);
  if (deep) throw new XcomValueError(`XCom ${key.key} of task ${key.taskId} cannot be stored: the value is ${deep}`);
  try {
    return stringify(value);
  } catch (err) {
    return describe(key, err);
  }
}

/** @example decodeXcom('[1]'); // 1 */
export function decodeXcom(text: string): unknown {
  return parse(text);
}

/**
 * Encodes a value as a JSON value, for stores that keep JSON (DynamoDB items, blobs).
 *
 * @example
 * xcomFromJson(xcomToJson(new Date(0), key)); // Date 1970-01-01
 */
export function xcomToJson(value: unknown, key: XcomKey): { $xcom: string; v: unknown } {
  return { $xcom: TAG, v: JSON.parse(encodeXcom(value, key)) };
}

/** Decodes what {@link xcomToJson} wrote; other JSON (written before this codec) is returned as it is. */
export function xcomFromJson(json: unknown): unknown {
  if (typeof json === 'object' && json !== null && (json as { $xcom?: unknown }).$xcom === TAG) {
    return unflatten((json as { v: never }).v);
  }
  return json;
}
