/**
 * How sensor registrations are spread over pokers: each target hashes to one of
 * {@link VIRTUAL_SHARDS} virtual shards, and poker shard i of N pokes the virtual shards
 * v ≡ i (mod N), so changing the number of pokers moves no registration.
 */

/** Poke targets are spread over this many virtual shards. */
export const VIRTUAL_SHARDS = 64;

/** Safety-net rows live in their own partitions of the sensor index, apart from the 64 virtual sensor shards. */
export const JOB_SHARD_BASE = 1000;
/** Partitions of safety-net rows; poker `s` of `n` takes partition `j` when `j % n === s`. */
export const JOB_PARTITIONS = 4;
