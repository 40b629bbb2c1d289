// Package merge merges sorted sources of cells, memstores and segments,
// at one read point: Iter, the merged walk of a Store's Iterator (per key
// the newest version, range tombstones applied, forward and backward), and
// Versions, every cell in cell order for compaction. Sources show their
// cells as package segread's Source does; Mem is a memstore's.
package merge
