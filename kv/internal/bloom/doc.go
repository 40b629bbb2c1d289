// Package bloom is the key filter of kv's segments: a Bloom filter over
// the user keys of a run of a segment's blocks, which a point read
// (Store.Get) consults before it fetches a block of the run. A key the
// run holds always passes; a key it does not hold passes with a
// probability of about 1% at the 10 bits per key a Store writes
// (BitsPerKey, with 7 probes: (1-e^(-7/10))^7 = 0.82%), so a Get of a key
// held by an older segment reads about one block of a newer segment in a
// hundred instead of one each time. The filter is the table filter of
// Pebble and LevelDB or HBase's ROW bloom: one hash per key, probes spread
// over the whole bit array (double hashing, Kirsch and Mitzenmacher).
//
// # Filter, version 1
//
//	filter := version u8 (=1) | probes u8 (1..30) | bits (n bytes, n >= 1)
//
// The filter holds m = 8n bits; bit b is bit b%8 (least significant
// first) of byte b/8 of bits. A key sets (Add), and is tested against
// (MayContain), the bits its hash picks:
//
//	h      = fmix64(fnv1a64(key))
//	h1, h2 = h mod 2^32, h div 2^32
//	x_j    = (h1 + j*h2) mod 2^32            for j = 0 .. probes-1
//	bit_j  = (x_j * m) div 2^32              (m at most 2^32)
//
// fnv1a64 is FNV-1a, 64 bits (offset basis cbf29ce484222325, prime
// 100000001b3, over the key's bytes); fmix64 is MurmurHash3's finaliser
// (h ^= h>>33; h *= ff51afd7ed558ccd; h ^= h>>33; h *= c4ceb9fe1a85ec53;
// h ^= h>>33). A filter of k keys at b bits per key has
// n = ceil(k*b/8) bytes (at least 1) and probes = round(b*ln 2) (7 at
// 10 bits per key, clamped to 1..30).
//
// Worked example, pinned by testdata/filter-v1.bin: the keys "apple",
// "banana" and "pear" at 10 bits per key: 30 bits round up to n = 4
// bytes (m = 32), 7 probes:
//
//	01 07 60 f4 0b de
//
// "apple" hashes to h = 9bd6c11a2c6bf096: h1 = 2c6bf096, h2 = 9bd6c11a,
// and its probes set bits 5, 25, 12, 31, 19, 6 and 26 (bytes 0 to 3 hold
// bits 0-7, 8-15, 16-23 and 24-31). A filter's bytes carry no checksum: the segment meta
// that names a filter holds its length and CRC-32C (package
// kv/internal/segment, meta version 6). Decode refuses a filter whose
// version, probe count or length is not of this format with an error
// wrapping blockenc.ErrCorrupt.
package bloom
