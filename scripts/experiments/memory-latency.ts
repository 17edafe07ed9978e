/**
 * Why a million-entry URL policy pays a memory access that 10 entries do not: the latency of a random read
 * from a table of each size, each read's address depending on the one before (as a hash probe's slot is
 * unknown until the hash is computed), so the CPU cannot overlap them. Where the figure jumps is where the
 * table stops fitting the caches this process really gets, which on a shared VM is far below the L3 size
 * that lscpu reports.
 *
 *   node scripts/experiments/memory-latency.ts
 */
const SIZES_MIB = [1, 2, 3, 4, 6, 8, 16, 64];
const READS = 2_000_000;
const ROUNDS = 3;
/** Every read's value ends up here and is printed, so no read can be optimised away. */
let checksum = 0;

for (const mib of SIZES_MIB) {
  const table = new Int32Array((mib * 1024 * 1024) / 4);
  const mask = table.length - 1;
  // A multiplicative hash of the index spreads the next read across the whole table.
  for (let i = 0; i < table.length; i++) table[i] = (Math.imul(i, 0x9e3779b1) >>> 0) & mask;
  const perRead: number[] = [];
  let at = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < READS; i++) at = (table[at]! ^ i) & mask;
    perRead.push(Number(process.hrtime.bigint() - started) / READS);
  }
  checksum ^= at;
  perRead.sort((a, b) => a - b);
  console.log(`${String(mib).padStart(3)} MiB: ${perRead[1]!.toFixed(1)} ns per dependent random read (median of ${ROUNDS} rounds)`);
}
console.log(`checksum ${checksum}`);
