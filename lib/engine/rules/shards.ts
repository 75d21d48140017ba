/**
 * How sensor registrations are spread over pokers: each target hashes to one of
 * {@link VIRTUAL_SHARDS} virtual shards, and poker shard i of N pokes the virtual shards
 * v ≡ i (mod N), so changing the number of pokers moves no registration.
 */

/** Poke targets are spread over this many virtual shards. */
export const VIRTUAL_SHARDS = 64;
